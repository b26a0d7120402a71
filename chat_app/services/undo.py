"""Undo the latest compaction or mask of a chat from its timeline marker.

The edit is non-destructive, so undoing it only marks it undone: the model's next view is
exactly the one before it. The decision (which edit, whether it still may be undone) is
:func:`agent_core.strategies.undo.undo_position`; this module checks the owner and acts.
"""

from __future__ import annotations

from agent_core.errors import StoreError
from agent_core.records import NewMessage
from agent_core.strategies.undo import undo_position
from chat_app.services import runtime
from chat_app.services.threads import owned_thread

__all__ = ["UndoRefused", "undo_marker"]


class UndoRefused(Exception):
    """Why an undo was not done, in words for the user."""


def undo_marker(owner: str | None, thread_id: str, marker_id: str) -> str:
    """Undo the edit behind the marker row ``marker_id``; returns the note to show."""
    if owned_thread(owner, thread_id) is None:
        raise UndoRefused("That chat no longer exists.")
    if runtime.runner().is_busy(thread_id):
        raise UndoRefused("The agent is working; undo once it has stopped.")
    store = runtime.store()
    session = store.current_session(thread_id)
    rows = store.messages(session.id)
    position = undo_position(rows, store.context_edits(session.id), marker_id)
    if isinstance(position, str):
        raise UndoRefused(position)
    try:
        edit = store.undo_context_edit(session.id, position)
    except StoreError as exc:
        raise UndoRefused(str(exc)) from None
    what = "compaction" if edit.kind == "compaction" else "mask"
    note = (f"Undid the {what}: the model sees the original messages again "
            f"({edit.tokens_after:,} → {edit.tokens_before:,} tokens)")
    store.append(thread_id, session.id, [NewMessage(
        role="event", content=note, meta={"event": "undo", "edit": position})])
    return note
