"""The supervisor: how many workers start, and a crash loop backs off instead of stopping."""

from __future__ import annotations

import threading
import time

import pytest

from chat_app import supervision
from chat_app.supervision import respawn_delay, settle_worker_count
from chat_app.upstream import BackoffRespawns


def test_a_slot_that_keeps_dying_waits_1_s_doubling_to_30_s() -> None:
    assert [respawn_delay(n) for n in range(8)] == [0, 1, 2, 4, 8, 16, 30, 30]


class _Worker:
    def __init__(self, born: float, alive: bool = True) -> None:
        self.birth, self.alive = born, alive

    def is_alive(self) -> bool:
        return self.alive


class _Granian:
    """What granian's server does around ``_respawn_workers``: respawn replaces the slot's
    worker and notes the time its serve loop reads to declare a crash loop."""

    def __init__(self, workers: int) -> None:
        self.wrks = [_Worker(time.monotonic() - 3600) for _ in range(workers)]
        self.respawned_wrks: dict[int, float] = {}
        self.interrupt_children: list[int] = []
        self.main_loop_interrupt = threading.Event()
        self.respawns: list[list[int]] = []

    def _respawn_workers(self, workers, spawn_target, target_loader, delay: float = 0) -> None:
        self.respawns.append(list(workers))
        for idx in workers:
            self.respawned_wrks[idx] = time.monotonic()
            self.wrks[idx] = _Worker(time.monotonic())

    def shutdown(self, exit_code: int = 0) -> None:
        pass


class _Server(BackoffRespawns, _Granian):
    pass


def _die(server: _Server, idx: int) -> None:
    server.wrks[idx].alive = False
    server.interrupt_children.clear()
    server.main_loop_interrupt.clear()
    server._respawn_workers([idx], None, None)


def test_a_worker_that_was_running_is_replaced_at_once() -> None:
    server = _Server(3)
    _die(server, 1)
    assert server.respawns == [[1]]
    # Granian's loop would call the next death of this slot within 5.5 s a crash loop.
    assert server.respawned_wrks == {}


def test_its_replacement_dying_soon_is_respawned_a_second_later_the_others_untouched(
    monkeypatch,
) -> None:
    monkeypatch.setattr(supervision, "FIRST_DELAY_SECONDS", 0.3)
    server = _Server(3)
    others = [server.wrks[0], server.wrks[2]]
    _die(server, 1)
    _die(server, 1)  # the replacement, killed at once
    assert server.respawns == [[1]], "respawned without waiting"
    assert server.main_loop_interrupt.wait(2), "the respawn was never woken"
    assert server.interrupt_children == [1]
    server._respawn_workers(server.interrupt_children, None, None)  # granian's loop, woken
    assert server.respawns == [[1], [1]] and server.wrks[1].is_alive()
    assert [server.wrks[0], server.wrks[2]] == others


def test_a_reload_of_live_workers_stays_granians_own() -> None:
    server = _Server(2)
    server._respawn_workers([0, 1], None, None, delay=3.5)
    assert server.respawns == [[0, 1]]


@pytest.mark.parametrize(
    ("env", "workers"),
    [
        ({}, 1),
        ({"GRANIAN_WORKERS": "5"}, 1),  # several workers without Redis would split the tabs' state
        ({"REFLEX_REDIS_URL": "redis://x", "GRANIAN_WORKERS": "5"}, 5),
    ],
)
def test_the_worker_count_is_written_where_reflex_reads_it(env, workers) -> None:
    assert settle_worker_count(env) == workers
    assert env["GRANIAN_WORKERS"] == str(workers)


def test_with_redis_one_worker_serves_per_two_cores(monkeypatch) -> None:
    from chat_app.db import settings

    for cores, workers in ((1, 1), (2, 1), (4, 2), (8, 4), (32, 8)):
        monkeypatch.setattr(settings, "_cores", lambda cores=cores: cores)
        assert settings.backend_workers({"REFLEX_REDIS_URL": "redis://x"}) == workers


def test_with_one_worker_the_tabs_state_stays_in_it_even_with_redis(monkeypatch) -> None:
    from chat_app.db import settings

    monkeypatch.setattr(settings, "_cores", lambda: 2)
    assert not settings.state_in_worker({})  # no Redis: Reflex's own default (memory)
    assert settings.state_in_worker({"REFLEX_REDIS_URL": "redis://x"})  # one worker on 2 cores
    assert not settings.state_in_worker({"REFLEX_REDIS_URL": "redis://x", "GRANIAN_WORKERS": "3"})
