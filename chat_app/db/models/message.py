"""Message rows (the timeline) and context edits (what the model sees of them)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Index, Text
from sqlmodel import Field, SQLModel

from chat_app.db.models.types import JSONValue, UTCDateTime, new_id, utcnow

__all__ = ["MessageBase", "Message", "MessagePublic", "ContextEditRow"]


class MessageBase(SQLModel):
    role: str = Field(max_length=16)
    content: str = Field(default="", sa_type=Text)
    tool_calls: list[dict[str, Any]] = Field(default_factory=list, sa_type=JSONValue)
    tool_call_id: str | None = Field(default=None, max_length=200)
    name: str | None = Field(default=None, max_length=200)
    todo_id: str | None = Field(default=None, max_length=200)
    token_count: int | None = None
    model: str | None = Field(default=None, max_length=200)
    meta: dict[str, Any] = Field(default_factory=dict, sa_type=JSONValue)


class Message(MessageBase, table=True):
    __tablename__ = "message"
    __table_args__ = (
        # The timeline window reads "last N of a thread before seq X"; the unique index is
        # also what proves seq numbers are never handed out twice.
        Index("ux_message_thread_seq", "thread_id", "seq", unique=True),
        # A session's rows in order, and min(seq) per session for the session index.
        Index("ix_message_session_seq", "session_id", "seq"),
    )

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    thread_id: str = Field(foreign_key="thread.id", ondelete="CASCADE", max_length=32)
    session_id: str = Field(foreign_key="chat_session.id", ondelete="CASCADE", max_length=32)
    seq: int
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class MessagePublic(MessageBase):
    id: str
    thread_id: str
    session_id: str
    seq: int
    created_at: datetime


class ContextEditRow(SQLModel, table=True):
    """One :class:`agent_core.storage._records.ContextEdit`, stored whole as JSON in edit order."""

    __tablename__ = "context_edit"
    __table_args__ = (
        Index("ux_context_edit_session_position", "session_id", "position", unique=True),
    )

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    session_id: str = Field(foreign_key="chat_session.id", ondelete="CASCADE", max_length=32)
    position: int
    data: dict[str, Any] = Field(default_factory=dict, sa_type=JSONValue)
