"""Turn starts go first: a run is marked while it starts, and turns under way let it pass
(the app's start lane, which reads the mark, is tested in tests/chat_app/test_start_lane.py)."""

from __future__ import annotations

import asyncio

from agent_core.runtime import _lanes as lanes
from agent_core.storage._memory_store import InMemoryStore
from tests.agent_core.runtime_helpers import make_setup, run


async def test_ending_the_start_reaches_tasks_the_run_already_created():
    seen: list[bool] = []
    proceed = asyncio.Event()

    async def child() -> None:
        seen.append(lanes.starting())
        await proceed.wait()
        seen.append(lanes.starting())

    lanes.begin_start()
    task = asyncio.create_task(child())  # copies the run's context now
    await asyncio.sleep(0)
    lanes.end_start()
    proceed.set()
    await task
    assert seen == [True, False]


class _Recording(InMemoryStore):
    """Notes whether each store call was made while the run was starting."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, bool]] = []

    def deliver_pending(self, thread_id, session_id, **options):
        self.calls.append(("deliver_pending", lanes.starting()))
        return super().deliver_pending(thread_id, session_id, **options)

    def append(self, thread_id, session_id, messages):
        self.calls.append((f"append {messages[0].role}", lanes.starting()))
        return super().append(thread_id, session_id, messages)


async def test_a_turn_is_starting_until_the_models_first_output_and_not_after():
    store = _Recording()
    await run(make_setup(store), "build a CSV parser for the invoices folder")
    assert store.calls[0] == ("deliver_pending", True)
    replies = [starting for name, starting in store.calls if name == "append assistant"]
    assert replies and not any(replies)
    assert not lanes.starting()  # the turn's end leaves no mark on the caller


async def test_a_turn_under_way_waits_for_other_starts_but_not_for_long(monkeypatch):
    # No duration is measured: with a bound far beyond the test's, only the start's end
    # lets the wait go; with a short one, a start that never ends lets it go all the same.
    monkeypatch.setattr(lanes, "MAX_YIELD_SECONDS", 600)
    lanes.end_start()  # this test's own context is no run
    assert await asyncio.wait_for(lanes.yield_to_starts(), 1) is None  # none starting: at once
    started = asyncio.Event()
    finish = asyncio.Event()

    async def other_turn() -> None:
        lanes.begin_turn()
        started.set()
        await finish.wait()
        lanes.end_start()

    other = asyncio.create_task(other_turn())
    await started.wait()
    waiting = asyncio.create_task(lanes.yield_to_starts())
    await asyncio.sleep(0.1)
    assert not waiting.done()  # the other turn is starting
    finish.set()
    await asyncio.wait_for(waiting, 1)  # and goes once it has started
    await other

    monkeypatch.setattr(lanes, "MAX_YIELD_SECONDS", 0.05)
    started.clear()
    stuck = asyncio.create_task(other_turn())
    finish.clear()
    await started.wait()
    await asyncio.wait_for(lanes.yield_to_starts(), 60)  # a start that never ends holds nobody
    assert not stuck.done()  # it is still starting
    finish.set()
    await stuck


async def test_a_starting_turn_does_not_wait_for_itself():
    lanes.begin_turn()
    try:
        await asyncio.wait_for(lanes.yield_to_starts(), 0.5)
    finally:
        lanes.end_start()
