"""A message that arrives while the thread is held by something that answers nothing (a
``/handoff``) is delivered once and answered once, on every store; a turn that fails or is
stopped is not run again by itself.

Two :class:`ThreadRunner` on one store stand for the web worker (running the handoff) and
the turn process (taking the other tab's send); one runner alone is a process without a
turn process, where the send is queued behind the handoff.
"""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agent_core import InMemoryStore, ThreadRunner
from agent_core.runtime import STOPPED_NOTE, awaits_turn, turn_waits
from agent_core.testing import FunctionChatModel, ScriptedChatModel
from chat_app.db.engine import get_engine
from chat_app.db.store import SqlStore
from tests.agent_core.runtime_helpers import collect, make_setup, of_type, run
from tests.chat_app.db.backends import create_thread, migrated_sqlite, pg_url  # noqa: F401

TASK = "Build a CSV parser for invoices"
LATE = "Also handle semicolons as separators"
WAIT_S = 30


@dataclass
class Backend:
    name: str
    store: Any
    thread: str


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "memory":
        yield Backend("memory", InMemoryStore(), uuid.uuid4().hex)
        return
    if request.param == "sqlite":
        engine = get_engine(migrated_sqlite(tmp_path))
    else:
        engine = get_engine(request.getfixturevalue("pg_url"))
    yield Backend(request.param, SqlStore(engine), create_thread(engine))


def _answering(calls: list) -> FunctionChatModel:
    def answer(messages, **_):
        calls.append([str(m.content) for m in messages])
        return "Semicolons are handled now."

    return FunctionChatModel(fn=answer, calls=[])


def _gated_writer(gate: asyncio.Event, entered: asyncio.Event) -> FunctionChatModel:
    return FunctionChatModel(fn=lambda messages, **_: "", calls=[], gate=gate, entered=entered)


def _open_rows(store: Any, thread: str) -> list:
    return store.messages(store.current_session(thread).id)


def _late_rows(rows: list) -> list:
    return [row for row in rows if row.role == "user" and row.content == LATE]


async def _started_handoff(runner: ThreadRunner, setup, gate, entered) -> asyncio.Task:
    task = asyncio.create_task(collect(runner.handoff(setup, None, cancel=asyncio.Event())))
    await asyncio.wait_for(entered.wait(), WAIT_S)  # the handoff holds the turn lock now
    return task


async def test_a_send_from_another_process_during_handoff_is_answered_once(
    backend: Backend,
) -> None:
    store, thread = backend.store, backend.thread
    setup = make_setup(store, thread_id=thread, window=200_000)
    await run(setup, TASK)
    gate, entered = asyncio.Event(), asyncio.Event()
    worker, child = ThreadRunner(), ThreadRunner()
    handoff = await _started_handoff(
        worker,
        dataclasses.replace(setup, handoff_model=_gated_writer(gate, entered)),
        gate,
        entered,
    )

    calls: list = []
    send = asyncio.create_task(
        collect(
            child.submit(
                dataclasses.replace(setup, model=_answering(calls)), LATE, client_id="tab2.1.x"
            )
        )
    )
    await asyncio.sleep(0.3)
    assert not send.done() and calls == []  # the send waits for the turn lock
    gate.set()
    handed = await asyncio.wait_for(handoff, WAIT_S)
    sent = await asyncio.wait_for(send, WAIT_S)

    assert [e["data"]["status"] for e in of_type(handed, "handoff")][-1] == "done"
    assert len(store.sessions(thread)) == 2
    rows = _open_rows(store, thread)
    [late] = _late_rows(rows)  # delivered into the new session by the handoff's commit
    assert late.meta.get("queued") is True
    replies = [row for row in rows if row.role == "assistant" and row.seq > late.seq]
    assert [row.content for row in replies] == ["Semicolons are handled now."]
    assert len(calls) == 1 and any(LATE in text for text in calls[0])
    assert of_type(sent, "accepted") and not of_type(sent, "error")
    # What the worker does after its handoff (answer_waiting) finds nothing left to do.
    again = await collect(
        worker.drain(dataclasses.replace(setup, model=_answering(calls)), cancel=asyncio.Event())
    )
    assert calls and len(calls) == 1 and not of_type(again, "message")
    assert not turn_waits(store, thread)


async def test_a_send_queued_behind_a_handoff_in_one_process_is_answered_after_it(
    backend: Backend,
) -> None:
    store, thread = backend.store, backend.thread
    setup = make_setup(store, thread_id=thread, window=200_000)
    await run(setup, TASK)
    gate, entered = asyncio.Event(), asyncio.Event()
    runner = ThreadRunner()
    handoff = await _started_handoff(
        runner,
        dataclasses.replace(setup, handoff_model=_gated_writer(gate, entered)),
        gate,
        entered,
    )
    queued = await collect(runner.submit(setup, LATE))  # busy here: queued, returns at once
    assert [e["data"]["content"] for e in of_type(queued, "queued")] == [LATE]
    gate.set()
    await asyncio.wait_for(handoff, WAIT_S)

    # The commit delivered it into the new session and no turn took it: it waits.
    [late] = _late_rows(_open_rows(store, thread))
    assert late.meta.get("queued") is True and store.pending(thread) == []
    assert awaits_turn(store, thread)

    calls: list = []
    answering = dataclasses.replace(setup, model=_answering(calls))
    await collect(runner.drain(answering, cancel=asyncio.Event()))
    await collect(runner.drain(answering, cancel=asyncio.Event()))  # a second look: nothing
    rows = _open_rows(store, thread)
    assert len(_late_rows(rows)) == 1
    assert [r.content for r in rows if r.role == "assistant"] == ["Semicolons are handled now."]
    assert len(calls) == 1


async def test_a_delivered_message_whose_process_died_is_answered_by_the_next_look(
    backend: Backend,
) -> None:
    store, thread = backend.store, backend.thread
    setup = make_setup(store, thread_id=thread, window=200_000)
    await run(setup, TASK)
    store.enqueue_pending(thread, LATE)
    # The process delivered it (the start of its turn) and died before the model answered.
    store.deliver_pending(thread, store.current_session(thread).id)
    assert awaits_turn(store, thread)
    calls: list = []
    await collect(
        ThreadRunner().drain(
            dataclasses.replace(setup, model=_answering(calls)), cancel=asyncio.Event()
        )
    )
    assert len(calls) == 1 and not awaits_turn(store, thread)


async def test_a_failed_turn_is_recorded_and_not_run_again(backend: Backend) -> None:
    store, thread = backend.store, backend.thread
    failing = ScriptedChatModel([RuntimeError("provider overloaded (529)")])
    setup = make_setup(store, thread_id=thread, window=200_000, model=failing)
    events = await run(setup, TASK)
    assert of_type(events, "error")
    [marker] = [row for row in _open_rows(store, thread) if row.role == "event"]
    assert marker.meta["event"] == "turn_failed"
    assert "provider overloaded (529)" in marker.content
    assert [
        e["data"]["id"] for e in of_type(events, "message") if e["data"]["role"] == "event"
    ] == [marker.id]  # shown live, as a reload shows it
    calls = len(failing.calls)
    for _ in range(3):  # every later look (a page opened, a worker's resume) runs nothing
        await collect(ThreadRunner().drain(setup, cancel=asyncio.Event()))
    assert len(failing.calls) == calls
    assert not turn_waits(store, thread)
    # Sending again asks again: the new message is due, and answered with both.
    ok = dataclasses.replace(setup, model=_answering(answers := []))
    await run(ok, "Please try again")
    assert len(answers) == 1 and TASK in "\n".join(answers[0])


async def test_a_turn_stopped_before_any_reply_is_not_answered_later(backend: Backend) -> None:
    store, thread = backend.store, backend.thread
    gate, entered = asyncio.Event(), asyncio.Event()
    held = FunctionChatModel(
        fn=lambda messages, **_: "too late", calls=[], gate=gate, entered=entered
    )
    setup = make_setup(store, thread_id=thread, window=200_000, model=held)
    cancel = asyncio.Event()
    turn = asyncio.create_task(collect(ThreadRunner().submit(setup, TASK, cancel=cancel)))
    await asyncio.wait_for(entered.wait(), WAIT_S)
    cancel.set()
    await asyncio.wait_for(turn, WAIT_S)
    gate.set()
    rows = _open_rows(store, thread)
    assert [(r.role, r.content) for r in rows] == [("user", TASK), ("event", STOPPED_NOTE)]
    assert rows[-1].meta["event"] == "turn_stopped"
    calls: list = []
    await collect(
        ThreadRunner().drain(
            dataclasses.replace(setup, model=_answering(calls)), cancel=asyncio.Event()
        )
    )
    assert calls == []


async def test_a_send_queued_behind_a_failed_handoff_is_answered_in_the_old_session(
    backend: Backend,
) -> None:
    store, thread = backend.store, backend.thread
    setup = make_setup(store, thread_id=thread, window=200_000)
    await run(setup, TASK)
    gate, entered = asyncio.Event(), asyncio.Event()
    runner = ThreadRunner()

    def refuse(*args, **kwargs):
        raise OSError("disk full")

    original = store.commit_reset
    store.commit_reset = refuse  # type: ignore[method-assign]
    try:
        handoff = await _started_handoff(
            runner,
            dataclasses.replace(setup, handoff_model=_gated_writer(gate, entered)),
            gate,
            entered,
        )
        await collect(runner.submit(setup, LATE))  # queued behind it
        gate.set()
        handed = await asyncio.wait_for(handoff, WAIT_S)
    finally:
        store.commit_reset = original  # type: ignore[method-assign]
    assert [e["data"]["status"] for e in of_type(handed, "handoff")][-1] == "failed"
    assert [p.content for p in store.pending(thread)] == [LATE]  # nothing was delivered
    calls: list = []
    await collect(
        runner.drain(dataclasses.replace(setup, model=_answering(calls)), cancel=asyncio.Event())
    )
    assert len(store.sessions(thread)) == 1 and len(calls) == 1
    assert len(_late_rows(_open_rows(store, thread))) == 1
