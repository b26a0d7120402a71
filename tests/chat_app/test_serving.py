"""The worker's process settings: supervised workers, a quieter garbage collector."""

from __future__ import annotations

import gc
import sys

import pytest

from chat_app.serving import (
    GC_YOUNG_THRESHOLD,
    GIL_SWITCH_INTERVAL,
    tune_garbage_collector,
    tune_thread_switching,
)


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


def test_a_thread_waiting_for_the_gil_gets_it_sooner_than_cpythons_default() -> None:
    default = sys.getswitchinterval()
    try:
        tune_thread_switching()
        assert sys.getswitchinterval() == pytest.approx(GIL_SWITCH_INTERVAL)
        assert GIL_SWITCH_INTERVAL < 0.005  # CPython's default
    finally:
        sys.setswitchinterval(default)


def test_reflexs_opportunistic_redis_locks_are_turned_off_with_a_warning(caplog) -> None:
    """They lost 11 of 201 messages across several workers: set, they are turned off."""
    from chat_app.serving import refuse_opportunistic_locks

    for value in ("true", "1", "YES"):
        env = {"REFLEX_OPLOCK_ENABLED": value}
        with caplog.at_level("WARNING", logger="chat_app.serving"):
            assert refuse_opportunistic_locks(env)
        assert env == {"REFLEX_OPLOCK_ENABLED": "false"}
        assert "loses messages" in caplog.text
    for env in ({}, {"REFLEX_OPLOCK_ENABLED": "false"}, {"REFLEX_OPLOCK_ENABLED": "0"}):
        before = dict(env)
        assert not refuse_opportunistic_locks(env)
        assert env == before
