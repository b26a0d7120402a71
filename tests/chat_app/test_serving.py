"""The worker's process settings: supervised workers, a quieter garbage collector."""

from __future__ import annotations

import gc

import pytest

from chat_app.serving import GC_YOUNG_THRESHOLD, tune_garbage_collector


@pytest.fixture
def restored_gc():
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


def test_the_worker_collects_rarely_and_never_walks_what_it_loaded(restored_gc) -> None:
    loaded = [["built", n] for n in range(1000)]  # what a worker has once it started
    tune_garbage_collector()
    assert gc.get_threshold()[0] == GC_YOUNG_THRESHOLD > 700
    assert gc.get_freeze_count() >= len(loaded)
    walked = {id(seen) for seen in gc.get_objects()}  # what a collection would walk
    assert gc.is_tracked(loaded[0]) and not walked & {id(item) for item in loaded}
