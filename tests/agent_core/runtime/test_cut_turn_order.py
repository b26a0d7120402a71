"""Messages are answered in the order they reached the session: a turn a crash cut, answered
once more, answers its message before a newer one (the user saw the turn end and wrote on;
one reply to both left the first unanswered: 12 of 100 chats in a turn-process kill)."""

from __future__ import annotations

import asyncio

from agent_core.runtime._runner import ThreadRunner
from agent_core.storage._records import NewMessage
from agent_core.strategies import TURN_RESUMED
from agent_core.testing import ScriptedChatModel
from tests.agent_core.runtime_helpers import collect, make_setup, of_type, run

FIRST, NEWER = "What does a CSV header row hold?", "And how are quotes escaped?"


def _answering():  # type: ignore[no-untyped-def]
    """A thread whose model answers each call with one plain reply (no tool calls)."""
    return make_setup(model=ScriptedChatModel(["The column names.", "Doubled."]))


def _cut():  # type: ignore[no-untyped-def]
    """A thread whose turn a crash cut: its message delivered, no answer, then the note that
    it is answered once more, as ``cut_turns.take_over`` leaves it."""
    setup = _answering()
    store, thread_id = setup.store, setup.thread_id
    session = store.current_session(thread_id)
    store.enqueue_pending(thread_id, FIRST)
    store.deliver_pending(thread_id, session.id)
    note = NewMessage(role="event", content="answered once more", meta={"event": TURN_RESUMED})
    store.append(thread_id, session.id, [note])
    return setup


def _asked_and_answered(setup) -> list[str]:  # type: ignore[no-untyped-def]
    """The thread's user messages and final replies (without tool calls), in order."""
    store = setup.store
    rows = [m for s in store.sessions(setup.thread_id) for m in store.messages(s.id)]
    return [
        m.content for m in rows if m.role == "user" or (m.role == "assistant" and not m.tool_calls)
    ]


async def test_the_resumed_turn_answers_the_cut_message_before_one_queued_since() -> None:
    setup = _cut()
    setup.store.enqueue_pending(setup.thread_id, NEWER)

    events = await collect(ThreadRunner().drain(setup, cancel=asyncio.Event(), resume=True))

    assert _asked_and_answered(setup) == [FIRST, "The column names.", NEWER, "Doubled."]
    assert of_type(events, "done") and not setup.store.pending(setup.thread_id)


async def test_a_send_that_takes_the_thread_first_waits_behind_the_cut_message() -> None:
    # The send won the turn lock before the resume: its message shows as queued until
    # the cut one is answered, then it is answered in the same run.
    setup = _cut()

    events = await run(setup, NEWER)

    assert _asked_and_answered(setup) == [FIRST, "The column names.", NEWER, "Doubled."]
    assert [e["data"]["content"] for e in of_type(events, "queued")] == [NEWER]
    assert of_type(events, "done") and not setup.store.pending(setup.thread_id)


async def test_a_turn_that_opens_on_no_cut_message_delivers_the_queue_first() -> None:
    # The rule holds only a resumed turn's queue: an ordinary send is delivered at once.
    setup = _answering()
    await run(setup, FIRST)

    events = await run(setup, NEWER)

    assert _asked_and_answered(setup) == [FIRST, "The column names.", NEWER, "Doubled."]
    assert not of_type(events, "queued")


async def test_a_resumed_turn_that_works_on_takes_the_newer_message_at_its_next_step() -> None:
    # With tools, the first step answers the cut message alone; the newer one comes in at
    # the next model call as any message typed while the agent works (``queued``).
    setup = _cut()
    setup = make_setup(setup.store)  # the simulator: plans, writes, runs, over many steps
    setup.store.enqueue_pending(setup.thread_id, NEWER)

    await collect(ThreadRunner().drain(setup, cancel=asyncio.Event(), resume=True))

    store = setup.store
    rows = [m for s in store.sessions(setup.thread_id) for m in store.messages(s.id)]
    newer = next(m for m in rows if m.role == "user" and m.content == NEWER)
    first_step = next(m for m in rows if m.role == "assistant")
    assert first_step.seq < newer.seq and newer.meta.get("queued") is True
    assert rows[-1].role == "assistant" and not rows[-1].tool_calls
