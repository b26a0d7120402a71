"""ChatSession: one context window of a thread; a reset ends one and opens the next."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

from chat_app.db.models.types import JSONValue, UTCDateTime, new_id, utcnow

__all__ = ["ChatSessionBase", "ChatSession", "ChatSessionPublic", "SessionIndexEntry"]


class ChatSessionBase(SQLModel):
    number: int
    trigger: str = Field(default="start", max_length=32)
    utilization: float | None = None
    model: str | None = Field(default=None, max_length=200)
    handoff: dict[str, Any] | None = Field(default=None, sa_type=JSONValue)
    parent_id: str | None = None


class ChatSession(ChatSessionBase, table=True):
    __tablename__ = "chat_session"
    # The unique pair is what stops two workers from both creating session 1 (or n+1).
    __table_args__ = (
        UniqueConstraint("thread_id", "number", name="uq_chat_session_thread_number"),
    )

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    thread_id: str = Field(foreign_key="thread.id", ondelete="CASCADE", max_length=32)
    parent_id: str | None = Field(
        default=None, foreign_key="chat_session.id", ondelete="SET NULL", max_length=32
    )
    started_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    ended_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class ChatSessionPublic(ChatSessionBase):
    id: str
    thread_id: str
    started_at: datetime
    ended_at: datetime | None = None


class SessionIndexEntry(SQLModel):
    """What the chip bar and the dividers need about a session, without its messages."""

    id: str
    number: int
    started_at: datetime
    trigger: str
    utilization: float | None = None
    model: str | None = None
    handoff: dict[str, Any] | None = None
    parent_id: str | None = None
    first_seq: int | None = None
