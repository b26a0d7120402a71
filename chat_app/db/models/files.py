"""Thread files (the agent's virtual workspace) and pending messages (queued in a reset)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from agent_core.storage import MAX_PATH_CHARS
from chat_app.db.models.types import UTCDateTime, new_id, utcnow

__all__ = ["ThreadFile", "PendingMessage", "PendingMessagePublic"]


class ThreadFile(SQLModel, table=True):
    __tablename__ = "thread_file"

    thread_id: str = Field(
        foreign_key="thread.id", ondelete="CASCADE", primary_key=True, max_length=32
    )
    path: str = Field(primary_key=True, max_length=MAX_PATH_CHARS)
    content: str = Field(default="", sa_type=Text)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class PendingMessageBase(SQLModel):
    seq: int
    content: str = Field(default="", sa_type=Text)
    delivered_session_id: str | None = None


class PendingMessage(PendingMessageBase, table=True):
    """A user message sent while the thread was busy; delivered into exactly one session."""

    __tablename__ = "pending_message"
    __table_args__ = (
        UniqueConstraint("thread_id", "seq", name="uq_pending_message_thread_seq"),
        UniqueConstraint("thread_id", "client_id", name="uq_pending_message_thread_client_id"),
    )

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    thread_id: str = Field(foreign_key="thread.id", ondelete="CASCADE", max_length=32)
    delivered_session_id: str | None = Field(
        default=None, foreign_key="chat_session.id", ondelete="SET NULL", max_length=32
    )
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    # Made by the sender's browser; a re-send after a lost acknowledgement finds it here.
    client_id: str | None = Field(default=None, max_length=64)


class PendingMessagePublic(PendingMessageBase):
    id: str
    thread_id: str
    created_at: datetime
