"""A turn cut by a crash (its process killed mid-answer) is answered once more at start-up,
never twice; a turn that ended any other way leaves nothing to resume. On SQLite and
PostgreSQL, with real processes killed with SIGKILL."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import uuid
from datetime import UTC, datetime

import pytest

from agent_core import StoredMessage
from chat_app.root import root
from tests.chat_app.test_services import (  # noqa: F401  (fixtures)
    _drain,
    database,
    db_url,
    settings,
)

database_too = pytest.mark.usefixtures("database")
# A killed turn's PostgreSQL lease lets its thread go after this many seconds.
LEASE_SECONDS = "3"


def _row(seq: int, role: str, *, calls: bool = False) -> StoredMessage:
    return StoredMessage(
        id=f"r{seq}",
        thread_id="t",
        session_id="s",
        seq=seq,
        role=role,
        content="x",
        created_at=datetime.now(UTC),
        tool_calls=[{"name": "ls", "args": {}, "id": "c"}] if calls else [],
    )


def test_a_message_is_answered_once_a_turn_ending_reply_follows_it() -> None:
    from chat_app.services.conversation.runs.cut_turns import needs_answer

    asked = [_row(1, "user"), _row(2, "assistant")]
    assert not needs_answer(asked, 1)
    assert needs_answer(asked, 3)  # a later message, nothing after it
    midway = [_row(1, "user"), _row(2, "assistant", calls=True), _row(3, "tool")]
    assert needs_answer(midway, 1)  # cut between a tool's result and the next step


def _owner() -> str:
    return f"owner-{uuid.uuid4().hex[:8]}"


def _killed_mid_turn(command: list[str]) -> None:
    """Run a worker process, and SIGKILL it as soon as its turn streams a first token."""
    env = os.environ | {
        "REFLEX_DB_URL": root().settings.db_url,  # the test's database
        "BATON_SIM_DELAY": "0.05",
        "BATON_SIM_WINDOW": "200000",
        "BATON_TURN_LEASE": LEASE_SECONDS,
    }
    worker = subprocess.Popen(
        [sys.executable, "-m", "tests.chat_app.db.workers", *command],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert worker.stdout.readline().strip() == "started"
        os.kill(worker.pid, signal.SIGKILL)
        assert worker.wait(timeout=30) == -signal.SIGKILL
    finally:
        worker.kill()


def _rows(thread_id: str) -> list[StoredMessage]:

    store = root().store
    return [m for s in store.sessions(thread_id) for m in store.messages(s.id)]


def _finals(thread_id: str) -> list[StoredMessage]:
    return [m for m in _rows(thread_id) if m.role == "assistant" and not m.tool_calls]


def _notes(thread_id: str) -> list[StoredMessage]:
    return [m for m in _rows(thread_id) if m.meta.get("event") == "turn_resumed"]


def _cut(*mine: str) -> list[tuple[str, str]]:
    """The cut turns among this test's threads (the PostgreSQL database is shared by runs)."""

    return [turn for turn in root().store.cut_turns() if turn[0] in mine]


def _resumed(app, *mine: str) -> frozenset[str]:
    """Which of this test's threads the app's start-up resumes (run to their end)."""
    return asyncio.run(_start_up(app)) & frozenset(mine)


async def _start_up(app) -> frozenset[str]:
    """What the app's start-up does, and the resumed turns run to their end."""
    from chat_app.services.conversation.runs import chat, cut_turns

    resumed = await cut_turns.resume_cut_turns(app)
    for _ in range(900):
        if not chat._detached:
            break
        await asyncio.sleep(0.1)
    return resumed


@database_too
def test_a_turn_cut_by_a_crash_is_answered_once_more_at_start_up(app) -> None:
    from chat_app.services.conversation.threads import chats as threads

    owner = _owner()
    thread = threads.create_thread(app, owner, "Invoices").id
    _killed_mid_turn(["turn", owner, thread, "Build a CSV parser for invoices"])
    assert _finals(thread) == []  # the crash cut it before any answer
    assert _cut(thread) == [(thread, owner)]

    assert _resumed(app, thread) == {thread}

    assert len(_notes(thread)) == 1
    assert len(_finals(thread)) >= 1 and _finals(thread)[-1].seq > _notes(thread)[0].seq
    assert _cut(thread) == []
    # A second start-up finds nothing to do.
    assert _resumed(app, thread) == frozenset()
    assert len(_notes(thread)) == 1


@database_too
def test_a_message_whose_second_answer_is_cut_too_is_not_tried_a_third_time(app) -> None:
    # As if the message itself killed the process each time: no crash loop.
    from chat_app.services.conversation.threads import chats as threads

    owner = _owner()
    thread = threads.create_thread(app, owner, "Poison").id
    _killed_mid_turn(["turn", owner, thread, "Build a CSV parser for invoices"])
    _killed_mid_turn(["resume_cut", owner, thread])  # start-up's one more time, cut again

    assert _cut(thread) == []
    assert _resumed(app, thread) == frozenset()
    assert _finals(thread) == [] and len(_notes(thread)) == 1


@database_too
def test_turns_that_end_stopped_or_answered_leave_nothing_to_resume(app) -> None:
    from chat_app.services.conversation.runs import chat
    from chat_app.services.conversation.threads import chats as threads

    owner = _owner()
    answered = threads.create_thread(app, owner, "Done").id
    asyncio.run(_drain(chat.send_message(app, owner, answered, "Build a CSV parser")))
    stopped = threads.create_thread(app, owner, "Stopped").id

    async def stop_midway() -> None:
        async for event in chat.send_message(app, owner, stopped, "Build a CSV parser"):
            if event.type == "token":
                chat.stop(app, stopped)

    asyncio.run(stop_midway())
    assert _cut(answered, stopped) == []
    assert _resumed(app, answered, stopped) == frozenset()


@database_too
def test_a_message_sent_after_a_crash_cut_a_turn_is_answered_after_the_cut_one(app) -> None:
    # The cut turn is noted as answered once more, and the user, who saw the turn end,
    # writes on before the resumed run takes the thread: the send takes it, answers the
    # cut message first and its own after, and lets the chat's stop flag go. Before, the
    # send delivered its message at once: one reply to both (12 of 100 chats in a
    # turn-process kill under load were left so).
    from chat_app.services.conversation.runs import chat, cut_turns
    from chat_app.services.conversation.threads import chats as threads

    owner = _owner()
    thread = threads.create_thread(app, owner, "Invoices").id
    _killed_mid_turn(["turn", owner, thread, "Build a CSV parser for invoices"])
    assert cut_turns.take_over(app, thread)

    events = asyncio.run(_drain(chat.send_message(app, owner, thread, "Also add tests")))

    rows = _rows(thread)
    cut = next(m for m in rows if m.role == "user")
    newer = next(m for m in rows if m.role == "user" and m.content == "Also add tests")
    assert any(m.role == "assistant" and cut.seq < m.seq < newer.seq for m in rows)
    assert _finals(thread)[-1].seq > newer.seq
    assert [e for e in events if e.get("type") == "queued"]  # shown as queued meanwhile
    assert len(app.cancels) == 0
    assert _resumed(app, thread) == frozenset()  # nothing left to answer again
