"""The runner's error events: what a user sees when a turn fails outside the provider mapping."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import gc
import time
import weakref

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from agent_core.events import MessageEvent, TokenEvent
from agent_core.redaction import forget_known_secrets, remember_secrets
from agent_core.runtime._runner import ThreadRunner
from agent_core.storage._memory_store import InMemoryStore
from agent_core.testing import ScriptedChatModel
from tests.agent_core.runtime_helpers import collect, make_setup, of_type, run

KEY = "sk-runner-BATONLEAKCANARY-0123456789"


async def test_a_failed_turn_shows_no_credentials() -> None:
    # An exception that skipped the provider mapping (a proxy layer, a tool, a bug) may quote
    # the request URL and the configured key (which the process was told of at start-up).
    remember_secrets([KEY])
    failure = RuntimeError(f"cannot reach https://user:{KEY}@host/v1 with Bearer {KEY}")
    setup = make_setup(model=ScriptedChatModel([failure]))
    try:
        events = await run(setup, "hi")
    finally:
        forget_known_secrets()
    [error] = of_type(events, "error")
    assert error["data"]["message"] == "cannot reach https://host/v1 with Bearer [redacted]"


def _lock_free_again(setup) -> bool:  # type: ignore[no-untyped-def]
    lock = setup.store._turn_locks[setup.thread_id]
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if lock.acquire(timeout=0.05):
            lock.release()
            return True
    return False


async def _stopped_while_it_waits_for_the_lock(setup, runner, start) -> None:  # type: ignore[no-untyped-def]
    """Another worker's turn holds the thread while the run ``start()`` makes waits for it;
    the run is cancelled (its tab closed, the server shutting down), then the other turn
    ends. The lock the run's thread takes later must not stay taken."""
    held = setup.store.turn_lock(setup.thread_id)
    held.__enter__()
    waiting = asyncio.create_task(collect(start()))
    await asyncio.sleep(0.2)
    assert runner.is_busy(setup.thread_id)  # a second send here queues behind this one
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    held.__exit__(None, None, None)
    assert await asyncio.to_thread(_lock_free_again, setup)


@pytest.mark.parametrize("kind", ["drain", "rerun"])
async def test_a_run_stopped_while_it_waits_for_the_turn_lock_gives_the_lock_back(
    kind: str,
) -> None:
    setup = make_setup()
    runner = ThreadRunner()
    setup.store.enqueue_pending(setup.thread_id, "hi")

    def run():  # type: ignore[no-untyped-def]
        return getattr(runner, kind)(setup, cancel=asyncio.Event())

    await _stopped_while_it_waits_for_the_lock(setup, runner, run)
    assert not runner.is_busy(setup.thread_id)


async def test_turns_run_one_after_another_while_messages_keep_coming() -> None:
    # A message queued while a turn runs is answered by the same drain, after it.
    setup = make_setup()
    runner = ThreadRunner()
    first = asyncio.create_task(collect(runner.submit(setup, "build a CSV parser")))
    await asyncio.sleep(0)
    queued = await collect(runner.submit(setup, "now add tests"))
    events = await first
    assert [e["type"] for e in queued][-1] == "queued"
    users = [
        m.content
        for session in setup.store.sessions(setup.thread_id)
        for m in setup.store.messages(session.id)
        if m.role == "user" and "pending_id" in m.meta
    ]
    assert users == ["build a CSV parser", "now add tests"]
    assert of_type(events, "done") and not setup.store.pending(setup.thread_id)


class _CountingExecutor(concurrent.futures.ThreadPoolExecutor):
    def __init__(self) -> None:
        super().__init__(max_workers=2)
        self.calls: list[str] = []

    def submit(self, fn, /, *args, **kwargs):
        self.calls.append(repr(fn))
        return super().submit(fn, *args, **kwargs)


async def test_a_new_turn_is_queued_locked_and_opened_in_one_trip_off_the_loop() -> None:
    # Under load each trip to a thread waits its turn twice (a thread, then the loop): the
    # message's first words came after three of them (queue, lock, open), now after one.
    setup = make_setup()
    executor = _CountingExecutor()
    asyncio.get_running_loop().set_default_executor(executor)
    trips_before_first_output = None
    async for event in ThreadRunner().submit(setup, "build a CSV parser", client_id="c.1"):
        if trips_before_first_output is None and isinstance(event, TokenEvent | MessageEvent):
            trips_before_first_output = len(executor.calls)
    assert trips_before_first_output == 1
    users = [
        m.content
        for session in setup.store.sessions(setup.thread_id)
        for m in setup.store.messages(session.id)
        if m.role == "user" and "pending_id" in m.meta
    ]
    assert users == ["build a CSV parser"]


async def test_a_send_stopped_while_it_waits_for_the_turn_lock_gives_the_lock_back() -> None:
    # The one-trip start takes the lock in the same trip that queues the message.
    setup = make_setup()
    runner = ThreadRunner()

    def send():  # type: ignore[no-untyped-def]
        return runner.submit(setup, "hi")

    await _stopped_while_it_waits_for_the_lock(setup, runner, send)
    assert not runner.is_busy(setup.thread_id)
    assert [r.content for r in setup.store.pending(setup.thread_id)] == ["hi"]  # kept


async def test_a_stopped_stream_still_gives_what_it_had_produced_and_an_error_after_its_items():
    from agent_core.runtime._runner import _until_cancelled

    cancel = asyncio.Event()
    produced: list[int] = []

    async def items():
        for number in range(3):
            produced.append(number)
            yield number
        cancel.set()  # stopped while the stream waits for its next item
        await asyncio.sleep(10)
        yield 99

    assert [item async for item in _until_cancelled(items(), cancel)] == [0, 1, 2]

    async def failing():
        yield 1
        raise ValueError("broken stream")

    seen = []
    with pytest.raises(ValueError, match="broken stream"):
        async for item in _until_cancelled(failing(), asyncio.Event()):
            seen.append(item)
    assert seen == [1]


async def test_a_finished_turn_leaves_no_context_held_by_the_threads_estimator() -> None:
    # The runner keeps an estimator per thread (up to 512) for what it learned; the turn's
    # messages and tools must not stay with it.
    setup = make_setup()
    runner = ThreadRunner()
    await run(setup, "build a CSV parser", runner)
    [estimator] = runner._estimators.values()
    assert estimator.counter._memo is None
    assert all(not a.messages and not a.tools for a in estimator._anchors.values())


def test_a_meter_read_of_an_idle_thread_keeps_the_figures_not_the_messages() -> None:
    # A chat's meter is measured in the web worker, whose turns run elsewhere: the estimator
    # kept for the thread held the context it last counted, every chat opened since staying
    # in memory after its tabs had left.
    setup = make_setup()
    runner = ThreadRunner()
    context = [HumanMessage("build a CSV parser"), AIMessage("Here is a parser " * 40)]
    held = [weakref.ref(message) for message in context]
    first = runner.measure(setup, context)
    again = runner.measure(setup, list(context))
    del context
    gc.collect()
    assert [ref() for ref in held] == [None, None]
    assert (again.tokens, again.basis) == (first.tokens, first.basis)


class _SlowToLetGo(InMemoryStore):
    """A store whose turn lock takes a while to release (a lease released over the network,
    a mark cleared in the database): the window in which a stopped drain is ending."""

    @contextlib.contextmanager
    def turn_lock(self, thread_id: str):  # type: ignore[no-untyped-def]
        with super().turn_lock(thread_id):
            yield
            time.sleep(0.3)


async def test_a_message_sent_while_a_stopped_turn_lets_go_is_answered() -> None:
    setup = make_setup(_SlowToLetGo())
    runner = ThreadRunner()
    cancel = asyncio.Event()
    first = runner.submit(setup, "build a CSV parser", cancel=cancel)
    async for event in first:
        if isinstance(event, TokenEvent):
            cancel.set()  # Stop
            break
    closing = asyncio.create_task(first.aclose())
    await asyncio.sleep(0.1)  # the stopped drain is letting the lock go
    events = await collect(runner.submit(setup, "carry on"))
    await closing
    assert "queued" not in [e["type"] for e in events]
    assert of_type(events, "done") == [{"type": "done", "data": {"cancelled": False}}]
    assert not setup.store.pending(setup.thread_id)
