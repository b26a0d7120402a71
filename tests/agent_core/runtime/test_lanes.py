"""Turn starts go first: a starting run's blocking calls skip the queue of the others."""

from __future__ import annotations

import asyncio
import collections
import threading

import pytest

from agent_core.runtime import lanes
from agent_core.runtime.lanes import LaneExecutor
from agent_core.storage.memory_store import InMemoryStore
from tests.agent_core.runtime_helpers import make_setup, run


@pytest.fixture
async def lane_executor():
    executor = LaneExecutor(max_workers=1, start_workers=2)
    asyncio.get_running_loop().set_default_executor(executor)
    yield executor
    executor.shutdown(wait=False, cancel_futures=True)


def _thread_name() -> str:
    return threading.current_thread().name


async def test_a_starting_runs_calls_do_not_wait_behind_the_busy_main_pool(lane_executor):
    release = threading.Event()
    busy = [asyncio.create_task(asyncio.to_thread(release.wait, 10)) for _ in range(3)]
    await asyncio.sleep(0.05)  # the one main thread is taken, two calls queue behind it

    async def starting_run() -> list[str]:
        lanes.begin_start()
        first = await asyncio.to_thread(_thread_name)
        lanes.end_start()
        later = asyncio.create_task(asyncio.to_thread(_thread_name))
        await asyncio.sleep(0.1)
        return [first, "waiting" if not later.done() else later.result(), later]

    first, second, later = await asyncio.wait_for(starting_run(), 5)
    assert first.startswith("baton-start")
    assert second == "waiting"  # once started, its calls queue in the main pool again
    release.set()
    await asyncio.gather(*busy)
    assert (await later).startswith("baton-work")


async def test_ending_the_start_reaches_tasks_the_run_already_created(lane_executor):
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
    import time

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

    monkeypatch.setattr(lanes, "MAX_YIELD_SECONDS", 0.2)
    stuck = asyncio.create_task(other_turn())
    finish.clear()
    await asyncio.sleep(0)
    began = time.monotonic()
    await lanes.yield_to_starts()  # a start that never ends holds nobody long
    assert 0.15 < time.monotonic() - began < 1
    finish.set()
    await stuck


async def test_a_starting_turn_does_not_wait_for_itself():
    lanes.begin_turn()
    try:
        await asyncio.wait_for(lanes.yield_to_starts(), 0.5)
    finally:
        lanes.end_start()


async def _busy_and_starting(busy_tasks: int, hops: int) -> tuple[int, list[str]]:
    """``busy_tasks`` tasks stepping forever, and a starting run making ``hops`` loop hops:
    how many busy steps ran while the run made its hops, and the order things finished."""
    steps, order, stop = [0], [], asyncio.Event()

    async def busy() -> None:
        while not stop.is_set():
            steps[0] += 1
            await asyncio.sleep(0)

    async def starting_run() -> None:
        lanes.begin_start()
        begun = steps[0]
        for _ in range(hops):
            await asyncio.sleep(0)
        order.append("start")
        steps[0] -= begun
        lanes.end_start()

    others = [asyncio.create_task(busy()) for _ in range(busy_tasks)]
    await asyncio.sleep(0)
    counted = steps[0]
    await asyncio.create_task(starting_run())
    stop.set()
    await asyncio.gather(*others)
    return steps[0] - counted, order


async def test_without_the_ready_queue_each_hop_of_a_start_waits_for_every_ready_task():
    ran_meanwhile, _ = await _busy_and_starting(busy_tasks=100, hops=20)
    assert ran_meanwhile >= 100 * 19  # a whole round of the busy tasks per hop


async def test_a_starting_runs_callbacks_go_before_the_other_ready_ones():
    loop = asyncio.get_running_loop()
    assert lanes.starts_first(loop)
    try:
        ran_meanwhile, order = await _busy_and_starting(busy_tasks=100, hops=20)
        assert order == ["start"]
        assert ran_meanwhile < 100  # less than one round of the busy tasks in all
    finally:
        loop._ready = collections.deque(loop._ready)


async def test_the_ready_queue_keeps_each_lanes_order():
    loop = asyncio.get_running_loop()
    assert lanes.starts_first(loop)
    assert lanes.starts_first(loop)  # installing twice changes nothing
    ran: list[str] = []
    try:
        done = asyncio.Event()
        for name in ("a", "b"):
            loop.call_soon(ran.append, name)

        def from_a_start(name: str) -> None:
            loop.call_soon(ran.append, name)

        lanes.begin_start()
        try:
            for name in ("s1", "s2"):
                from_a_start(name)
        finally:
            lanes.end_start()
        loop.call_soon(ran.append, "c")
        loop.call_soon(done.set)
        await done.wait()
        assert ran == ["s1", "s2", "a", "b", "c"]
        assert isinstance(loop._ready, lanes.ReadyQueue) and not loop._ready.urgent
    finally:
        loop._ready = collections.deque(loop._ready)


async def test_a_start_that_keeps_its_callbacks_coming_starves_nobody():
    loop = asyncio.get_running_loop()
    assert lanes.starts_first(loop)
    others_ran, seen_by_the_start = [0], []

    async def long_start() -> None:
        lanes.begin_start()
        for _ in range(5_000):  # never waits for anything but the loop
            await asyncio.sleep(0)
        seen_by_the_start.append(others_ran[0])

    async def other() -> None:
        for _ in range(50):
            others_ran[0] += 1
            await asyncio.sleep(0)

    try:
        start = asyncio.create_task(long_start())
        await asyncio.sleep(0)
        await asyncio.gather(start, asyncio.create_task(other()))
        assert seen_by_the_start == [50]  # the other task finished meanwhile
    finally:
        loop._ready = collections.deque(loop._ready)
