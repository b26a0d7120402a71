"""Thread: one conversation of an owner with an assistant, across its sessions."""

from __future__ import annotations

from datetime import datetime

from pydantic import ConfigDict
from sqlalchemy import Index, text
from sqlmodel import Field, SQLModel

from chat_app.db.models.types import UTCDateTime, new_id, utcnow

__all__ = ["ThreadBase", "ThreadCreate", "ThreadUpdate", "Thread", "ThreadPublic"]


class ThreadBase(SQLModel):
    title: str = Field(default="New chat", max_length=300)


class ThreadCreate(ThreadBase):
    model_config = ConfigDict(extra="forbid")  # type: ignore[assignment]

    owner: str = Field(max_length=200)
    assistant_id: str = Field(max_length=32)


class ThreadUpdate(SQLModel):
    model_config = ConfigDict(extra="forbid")  # type: ignore[assignment]

    title: str | None = Field(default=None, max_length=300)


class Thread(ThreadBase, table=True):
    """``next_seq`` / ``next_pending_seq`` are the next numbers to hand out; the store
    allocates them while holding this row's lock, which is what orders a thread's writes."""

    __tablename__ = "thread"
    # The home page lists one owner's threads newest first.
    __table_args__ = (
        Index("ix_thread_owner_updated_at", "owner", "updated_at"),
        Index(
            "ix_thread_answering",
            "answering_seq",
            postgresql_where=text("answering_seq IS NOT NULL"),
            sqlite_where=text("answering_seq IS NOT NULL"),
        ),
    )

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    owner: str = Field(index=True, max_length=200)
    assistant_id: str = Field(foreign_key="assistant.id", index=True, max_length=32)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, index=True)
    next_seq: int = 1
    next_pending_seq: int = 1
    # How often Stop was pressed on this thread. A running turn, in whichever worker process
    # runs it, compares this with the figure it started with: Stop works across workers.
    stop_requests: int = 0
    # A fork: the chat it was copied from (no foreign key: deleting the origin keeps the
    # fork, whose link then finds nothing) and the seq of the message it was forked at.
    forked_from_id: str | None = Field(default=None, max_length=32)
    forked_from_seq: int | None = None
    # The first message a turn took (delivered) and has not finished answering: set with the
    # delivery, cleared when the turn lets the thread go. Left set, the turn's process died.
    answering_seq: int | None = None


class ThreadPublic(ThreadBase):
    id: str
    owner: str
    assistant_id: str
    created_at: datetime
    updated_at: datetime
