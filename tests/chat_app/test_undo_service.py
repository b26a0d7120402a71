"""Undo from a timeline marker, through the services on SQLite."""

from __future__ import annotations

import pytest

from agent_core import ContextEdit, NewMessage, build_context
from chat_app.root import root


@pytest.fixture
def chat(monkeypatch, app):
    from chat_app.services.conversation.threads import chats as threads

    thread = threads.create_thread(app, "owner-a").id
    store = root().store
    session = store.current_session(thread)
    store.append(
        thread,
        session.id,
        [NewMessage(role="user", content="go"), NewMessage(role="assistant", content="working")],
    )
    before = build_context(store, session)
    store.add_context_edit(
        session.id,
        ContextEdit(
            kind="compaction",
            summary="s",
            upto_seq=2,
            tokens_before=900,
            tokens_after=40,
            utilization=0.52,
        ),
        NewMessage(role="event", content="Compacted", meta={"event": "compaction", "edit": 0}),
    )
    marker = store.messages(session.id)[-1]
    yield store, thread, session, marker, before


def test_undo_restores_the_view_and_notes_it_on_the_timeline(chat, app) -> None:
    from chat_app.services.conversation.threads.undo import undo_marker

    store, thread, session, marker, before = chat
    assert build_context(store, session) != before

    note = undo_marker(app, "owner-a", thread, marker.id)

    assert note == (
        "Undid the compaction: the model sees the original messages again (40 → 900 tokens)"
    )
    assert build_context(store, session) == before
    assert store.messages(session.id)[-1].content == note


def test_undo_is_refused_to_another_owner_and_twice(chat, app) -> None:
    from chat_app.services.conversation.threads.undo import UndoRefused, undo_marker

    store, thread, session, marker, _ = chat
    with pytest.raises(UndoRefused, match="no longer exists") as refused:
        undo_marker(app, "owner-b", thread, marker.id)
    assert refused.value.code == "chat_gone"
    assert not store.context_edits(session.id)[0].undone
    undo_marker(app, "owner-a", thread, marker.id)
    with pytest.raises(UndoRefused, match="already undone") as refused:
        undo_marker(app, "owner-a", thread, marker.id)
    assert refused.value.code == "cannot_undo"
