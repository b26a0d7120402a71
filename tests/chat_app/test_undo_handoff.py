"""Undo a /handoff through the services on SQLite: the previous session goes on exactly."""

from __future__ import annotations

import asyncio

import pytest

from agent_core import NewMessage, build_context
from chat_app.root import root
from chat_app.settings import Settings
from tests.chat_app.wire import drained


@pytest.fixture
def settings(db_url: str) -> Settings:
    # The simulator answers at once: the runs here are about order, not pace.
    return Settings(db_url=db_url, sim_delay=0)


@pytest.fixture
def chat(app):
    from chat_app.services.conversation.threads import chats as threads

    thread = threads.create_thread(app, "owner-a").id
    store = root().store
    session = store.current_session(thread)
    call = {"name": "write_file", "args": {"path": "parser.py", "content": "x = 1"}, "id": "c1"}
    store.append(
        thread,
        session.id,
        [
            NewMessage(role="user", content="Build a CSV parser for invoices"),
            NewMessage(role="assistant", content="Writing it.", tool_calls=[call]),
            NewMessage(
                role="tool", content="wrote parser.py", tool_call_id="c1", name="write_file"
            ),
            NewMessage(role="assistant", content="The parser is written."),
        ],
    )
    store.write_file(thread, "parser.py", "x = 1")
    yield store, thread, session


async def _handoff(app, thread: str) -> list[dict]:
    from chat_app.services.conversation.runs import chat as chat_service

    return await drained(chat_service.run_handoff(app, "owner-a", thread, None))


def test_undo_of_a_handoff_gives_back_the_previous_session_and_its_view(chat, app) -> None:
    from chat_app.services.conversation.threads.undo import undo_handoff

    store, thread, first = chat
    before = build_context(store, first)
    asyncio.run(_handoff(app, thread))
    second = store.current_session(thread)
    assert (second.number, second.trigger) == (2, "manual")
    assert store.read_file(thread, "HANDOFF-1.md") is not None

    note = undo_handoff(app, "owner-a", thread, 2)

    assert note == "Undid the /handoff: session 1 goes on where it stopped"
    assert [s.id for s in store.sessions(thread)] == [first.id]
    assert store.current_session(thread).ended_at is None
    assert build_context(store, first) == before  # the note is an event row, never sent
    assert store.read_file(thread, "HANDOFF-1.md") is None
    assert store.list_files(thread) == ["parser.py"]


def test_a_handoff_undo_is_refused_when_answered_automatic_or_not_the_latest(chat, app) -> None:
    from chat_app.services.conversation.threads.undo import UndoRefused, undo_handoff

    store, thread, first = chat
    with pytest.raises(UndoRefused, match="Only the latest /handoff"):
        undo_handoff(app, "owner-a", thread, 1)
    asyncio.run(_handoff(app, thread))
    second = store.current_session(thread)
    with pytest.raises(UndoRefused, match="no longer exists"):
        undo_handoff(app, "owner-b", thread, 2)
    store.append(thread, second.id, [NewMessage(role="assistant", content="Carrying on.")])
    with pytest.raises(UndoRefused, match="answered since"):
        undo_handoff(app, "owner-a", thread, 2)
    assert store.current_session(thread).id == second.id

    third, _ = store.commit_reset(
        thread,
        old_session_id=second.id,
        trigger="auto",
        utilization=0.81,
        model="simulator",
        handoff={},
        handoff_path="HANDOFF-2.md",
        handoff_markdown="-",
        context=[NewMessage(role="handoff", content="h")],
    )
    with pytest.raises(UndoRefused, match="automatic reset cannot"):
        undo_handoff(app, "owner-a", thread, 3)
