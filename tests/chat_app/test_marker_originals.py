"""A marker expands to the original messages its edit replaced, read from SQLite, bounded."""

from __future__ import annotations

import pytest

from agent_core import ContextEdit, NewMessage
from chat_app.root import root


@pytest.fixture
def chat(monkeypatch, app):
    from chat_app.services.conversation.threads import chats as threads

    thread = threads.create_thread(app, "owner-a").id
    store = root().store
    session = store.current_session(thread)
    rows = [NewMessage(role="user", content="Fix the build")]
    for n in range(40):
        call = {"name": "run_command", "args": {"command": f"make {n}"}, "id": f"c{n}"}
        rows += [
            NewMessage(role="assistant", content=f"step {n}", tool_calls=[call]),
            NewMessage(
                role="tool",
                content=f"log {n} " + "x" * 3000,
                tool_call_id=f"c{n}",
                name="run_command",
            ),
        ]
    stored = store.append(thread, session.id, rows)
    yield store, thread, session, stored


def _marker(store, session, edit: ContextEdit, event: str):
    store.add_context_edit(
        session.id,
        edit,
        NewMessage(
            role="event",
            content=event,
            meta={"event": event, "edit": len(store.context_edits(session.id))},
        ),
    )
    return store.messages(session.id)[-1]


def test_a_mask_marker_shows_the_full_outputs_it_masked(chat, app) -> None:
    from chat_app.services.conversation.threads.markers import marker_originals

    store, thread, session, stored = chat
    tools = [r for r in stored if r.role == "tool"][:2]
    marker = _marker(
        store,
        session,
        ContextEdit(
            kind="mask",
            summary="",
            seqs=[r.seq for r in tools],
            placeholders={r.seq: "[masked]" for r in tools},
        ),
        "masking",
    )

    view = marker_originals(app, "owner-a", thread, marker.id)

    assert [item.key for item in view.items] == [r.id for r in tools]
    assert view.items[0].who == "Tool result · run_command"
    assert view.items[0].content.startswith("log 0 xxx")
    assert view.items[0].content.endswith("[1,006 more characters]")  # clipped at 2,000
    assert view.note == "The 2 original messages, as stored."


def test_a_compaction_marker_shows_at_most_thirty_of_what_it_replaced(chat, app) -> None:
    from chat_app.services.conversation.threads.markers import MAX_ORIGINALS, marker_originals

    store, thread, session, stored = chat
    marker = _marker(
        store,
        session,
        ContextEdit(kind="compaction", summary="s", upto_seq=stored[60].seq),
        "compaction",
    )

    view = marker_originals(app, "owner-a", thread, marker.id)

    assert view.total == 61 and len(view.items) == MAX_ORIGINALS
    assert view.items[0].who == "You" and view.items[0].content == "Fix the build"
    assert view.items[1].content == "step 0\nRan `make 0`"
    assert view.note.startswith("The first 30 of 61 original messages")


def test_originals_are_refused_to_another_owner_and_for_other_rows(chat, app) -> None:
    from chat_app.services.conversation.threads.markers import marker_originals

    store, thread, session, stored = chat
    marker = _marker(
        store,
        session,
        ContextEdit(kind="compaction", summary="s", upto_seq=stored[3].seq),
        "compaction",
    )
    assert marker_originals(app, "owner-b", thread, marker.id) is None
    assert marker_originals(app, "owner-a", thread, stored[0].id) is None
    assert marker_originals(app, "owner-a", thread, "no-such-row") is None
