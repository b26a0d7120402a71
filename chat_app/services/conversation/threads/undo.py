"""Undo the latest compaction or mask of a chat from its timeline marker, or its /handoff.

The edit is non-destructive, so undoing it only marks it undone: the model's next view is
exactly the one before it. The decision (which edit, whether it still may be undone) is
:func:`agent_core.strategies._undo.undo_position`; this module checks the owner and acts.
A ``/handoff`` is undone while the model has not answered in the session it opened
(:func:`agent_core.strategies._undo.reset_undo_refusal`): ``store.undo_reset`` removes that
session and its opening rows, queues what was delivered into it again and reopens the
previous session.
"""

from __future__ import annotations

from agent_core import NewMessage, StoreError
from agent_core.handoff import handoff_filename
from agent_core.strategies import reset_undo_refusal, undo_position
from chat_app.errors import Refused
from chat_app.services.conversation.threads.chats import owned_thread
from chat_app.services.runtime.container import App

__all__ = ["UndoRefused", "undo_marker", "undo_handoff"]


class UndoRefused(Refused):
    """Why an undo was not done, in words for the user."""

    default_code = "undo_refused"


def undo_marker(app: App, owner: str | None, thread_id: str, marker_id: str) -> str:
    """Undo the edit behind the marker row ``marker_id``; returns the note to show."""
    if owned_thread(app, owner, thread_id) is None:
        raise UndoRefused("That chat no longer exists.", code="chat_gone")
    if app.is_busy(thread_id):
        raise UndoRefused("The agent is working; undo once it has stopped.", code="agent_working")
    store = app.store
    session = store.current_session(thread_id)
    rows = store.messages(session.id)
    position = undo_position(rows, store.context_edits(session.id), marker_id)
    if isinstance(position, str):
        raise UndoRefused(position, code="cannot_undo")
    try:
        edit = store.undo_context_edit(session.id, position)
    except StoreError as exc:
        raise UndoRefused(str(exc), code="store_failed") from None
    what = "compaction" if edit.kind == "compaction" else "mask"
    note = (
        f"Undid the {what}: the model sees the original messages again "
        f"({edit.tokens_after:,} → {edit.tokens_before:,} tokens)"
    )
    store.append(
        thread_id,
        session.id,
        [NewMessage(role="event", content=note, meta={"event": "undo", "edit": position})],
    )
    return note


def undo_handoff(app: App, owner: str | None, thread_id: str, session_number: int) -> str:
    """Undo the ``/handoff`` that opened session ``session_number``; returns the note shown."""
    if owned_thread(app, owner, thread_id) is None:
        raise UndoRefused("That chat no longer exists.", code="chat_gone")
    if app.is_busy(thread_id):
        raise UndoRefused("The agent is working; undo once it has stopped.", code="agent_working")
    store = app.store
    current = store.current_session(thread_id)
    refusal = reset_undo_refusal(current, store.messages(current.id), session_number)
    if refusal is not None:
        raise UndoRefused(refusal, code="cannot_undo")
    try:
        previous = store.undo_reset(
            thread_id, current.id, handoff_path=handoff_filename(current.number - 1)
        )
    except StoreError as exc:
        raise UndoRefused(str(exc), code="store_failed") from None
    note = f"Undid the /handoff: session {previous.number} goes on where it stopped"
    store.append(
        thread_id,
        previous.id,
        [NewMessage(role="event", content=note, meta={"event": "undo", "reset": current.number})],
    )
    return note
