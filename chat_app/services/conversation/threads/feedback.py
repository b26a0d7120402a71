"""Feedback on a reply: the owner rates it up or down, with an optional note. Stored one per
reply (rating again replaces it, the same thumb again clears it), exported with the chat,
and counted per assistant on /admin."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from sqlmodel import Session, col, func, select

from chat_app.db import repo
from chat_app.db.models import Message, ReplyFeedback
from chat_app.db.models.feedback import NOTE_CHARS
from chat_app.db.models.types import utcnow
from chat_app.errors import Refused
from chat_app.services.runtime.backend import Backend

__all__ = [
    "FeedbackRefused",
    "FeedbackSummary",
    "NOTE_CHARS",
    "assistant_feedback",
    "rate_reply",
    "thread_feedback",
]

RATINGS = ("up", "down")
RECENT_NOTES = 5


class FeedbackRefused(Refused):
    """Why a rating was not stored, in words for the user."""

    default_code = "feedback_refused"


class FeedbackSummary(BaseModel):
    """An assistant's replies as rated: counts, and the newest notes."""

    model_config = ConfigDict(extra="forbid")

    up: int = 0
    down: int = 0
    notes: list[str] = []


def rate_reply(
    app: Backend, owner: str, thread_id: str, seq: int, rating: str, note: str = ""
) -> str:
    """Rate the reply at ``seq`` of the owner's chat ``"up"`` or ``"down"`` (with ``note``),
    or clear its rating (``""``). Returns the rating now stored. Raises
    :class:`FeedbackRefused` for another's chat, a row that is not a reply, an unknown
    rating or a note past :data:`NOTE_CHARS`; nothing is stored then."""
    if rating not in (*RATINGS, ""):
        raise FeedbackRefused(
            f"A rating is up or down, not {rating!r}.", field="rating", code="unknown_rating"
        )
    note = note.strip()
    if len(note) > NOTE_CHARS:
        raise FeedbackRefused(
            f"A note holds at most {NOTE_CHARS:,} characters (this one has {len(note):,}).",
            field="note",
            code="note_too_long",
        )
    with app.write() as db:
        thread = repo.get_thread(session=db, thread_id=thread_id, owner=owner)
        if thread is None:
            raise FeedbackRefused("That chat does not exist.", code="chat_gone")
        reply = db.exec(
            select(Message.role).where(Message.thread_id == thread_id, Message.seq == seq)
        ).first()
        if reply != "assistant":
            raise FeedbackRefused("Only a reply can be rated.", code="not_a_reply")
        known = _stored(db, thread_id, seq)
        if not rating:
            if known is not None:
                db.delete(known)
                db.commit()
            return ""
        if known is None:
            known = ReplyFeedback(
                thread_id=thread_id, seq=seq, assistant_id=thread.assistant_id, rating=rating
            )
        known.rating, known.note, known.updated_at = rating, note, utcnow()
        db.add(known)
        db.commit()
        return rating


def _stored(db: Session, thread_id: str, seq: int) -> ReplyFeedback | None:
    query = select(ReplyFeedback).where(
        ReplyFeedback.thread_id == thread_id, ReplyFeedback.seq == seq
    )
    return db.exec(query).first()


def thread_feedback(app: Backend, owner: str | None, thread_id: str) -> dict[int, ReplyFeedback]:
    """The owner's ratings in a chat, by the seq of the reply rated."""
    with app.read() as db:
        if repo.get_thread(session=db, thread_id=thread_id, owner=owner) is None:
            return {}
        rows = db.exec(select(ReplyFeedback).where(ReplyFeedback.thread_id == thread_id))
        return {row.seq: row for row in rows}


def assistant_feedback(app: Backend, assistant_id: str) -> FeedbackSummary:
    """How the replies of ``assistant_id``'s chats were rated (for /admin)."""
    with app.read() as db:
        counts = dict(
            db.exec(
                select(ReplyFeedback.rating, func.count())
                .where(ReplyFeedback.assistant_id == assistant_id)
                .group_by(col(ReplyFeedback.rating))
            ).all()
        )
        notes = db.exec(
            select(ReplyFeedback.rating, ReplyFeedback.note)
            .where(ReplyFeedback.assistant_id == assistant_id, ReplyFeedback.note != "")
            .order_by(col(ReplyFeedback.updated_at).desc())
            .limit(RECENT_NOTES)
        ).all()
    return FeedbackSummary(
        up=int(counts.get("up", 0)),
        down=int(counts.get("down", 0)),
        notes=[f"{'👍' if rating == 'up' else '👎'} {note}" for rating, note in notes],
    )
