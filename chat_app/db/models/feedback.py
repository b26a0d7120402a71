"""Feedback on a reply: thumbs up or down, with an optional note, one per reply."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from sqlalchemy import Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from chat_app.db.models.types import UTCDateTime, new_id, utcnow

__all__ = ["Rating", "ReplyFeedback", "ReplyFeedbackBase", "NOTE_CHARS"]

Rating = Literal["up", "down"]
NOTE_CHARS = 2_000


class ReplyFeedbackBase(SQLModel):
    rating: str = Field(max_length=4)  # "up" | "down"
    note: str = Field(default="", sa_type=Text)


class ReplyFeedback(ReplyFeedbackBase, table=True):
    """The owner's rating of the reply at ``seq`` of a thread. ``assistant_id`` is the
    assistant that answered (the thread's when rated), so /admin counts per assistant."""

    __tablename__ = "reply_feedback"
    __table_args__ = (UniqueConstraint("thread_id", "seq", name="ux_reply_feedback_reply"),)

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    thread_id: str = Field(foreign_key="thread.id", ondelete="CASCADE", index=True, max_length=32)
    seq: int
    assistant_id: str = Field(index=True, max_length=32)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
