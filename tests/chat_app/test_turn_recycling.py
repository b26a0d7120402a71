"""The idle replacement policy on its own: when a turn process's child is due for a fresh one."""

from __future__ import annotations

import os

from chat_app.services.runtime.turn_recycling import Recycling, resident_bytes

MB = 2**20
LOADED = 100 * MB


class Held:
    """What the test says a child holds, and how often it was asked."""

    def __init__(self, now: int) -> None:
        self.now, self.asked = now, 0

    def __call__(self, pid: int) -> int:
        self.asked += 1
        return self.now


def _policy(held: Held) -> Recycling:
    return Recycling(growth=64 * MB, idle=5.0, runs=20, measure=held)


def test_an_idle_child_that_ran_its_runs_and_grew_is_due_by_its_growth() -> None:
    held = Held(LOADED + 70 * MB)
    assert _policy(held).due(pid=1, runs=20, idle_for=5.0, loaded=LOADED) == 70 * MB


def test_a_child_short_of_any_one_condition_is_kept() -> None:
    held = Held(LOADED + 70 * MB)
    policy = _policy(held)
    assert policy.due(pid=1, runs=19, idle_for=60.0, loaded=LOADED) is None
    assert policy.due(pid=1, runs=500, idle_for=4.9, loaded=LOADED) is None
    assert policy.due(pid=1, runs=500, idle_for=60.0, loaded=None) is None  # not loaded yet
    assert held.asked == 0  # what it holds is read only once the rest is met
    held.now = LOADED + 63 * MB
    assert policy.due(pid=1, runs=500, idle_for=60.0, loaded=LOADED) is None


def test_a_child_whose_memory_cannot_be_read_is_kept() -> None:
    policy = Recycling(runs=0, idle=0.0, measure=lambda pid: None)
    assert policy.due(pid=1, runs=1, idle_for=1.0, loaded=LOADED) is None


def test_no_growth_allowance_means_never_and_the_checks_see_short_idle_spells() -> None:
    assert not Recycling(growth=0).enabled
    assert Recycling().enabled
    assert Recycling(idle=0.2).poll_interval == 0.1
    assert Recycling(idle=5.0).poll_interval == 1.0


def test_what_this_process_holds_is_read_from_proc() -> None:
    held = resident_bytes(os.getpid())
    assert held is not None and held > 10 * MB
    assert resident_bytes(2**22 + 12345) is None  # no such process
