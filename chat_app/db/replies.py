"""Which stored rows are earlier replies the model no longer sees (regenerated replies:
``ContextEdit(kind="reply")`` rows not undone), for the timeline to show as such."""

from __future__ import annotations

from sqlmodel import Session, col, select

from agent_core import ContextEdit
from chat_app.db.models import ChatSession, ContextEditRow

__all__ = ["replaced_replies", "replaced_seqs"]


def replaced_replies(*, session: Session, thread_id: str) -> list[tuple[int, ...]]:
    """The thread's replies that another reply replaced, each as the seqs of its rows."""
    data = session.exec(
        select(ContextEditRow.data)
        .join(ChatSession, col(ChatSession.id) == col(ContextEditRow.session_id))
        .where(ChatSession.thread_id == thread_id)
    ).all()
    edits = [ContextEdit.model_validate(d) for d in data if d.get("kind") == "reply"]
    return [tuple(edit.seqs) for edit in edits if not edit.undone and edit.seqs]


def replaced_seqs(*, session: Session, thread_id: str) -> set[int]:
    """The seqs of the thread's replies that another reply replaced."""
    return {
        seq for reply in replaced_replies(session=session, thread_id=thread_id) for seq in reply
    }
