"""An imported agent session (read-only chat) and the what-if replays run over it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Index, Text
from sqlmodel import Field, SQLModel

from chat_app.db.models.types import JSONValue, UTCDateTime, new_id, utcnow

__all__ = ["ImportedTranscript", "TranscriptReplay"]


class ImportedTranscript(SQLModel, table=True):
    """Marks a thread as an imported record (read-only) and keeps the file for replays.

    ``usage`` is the original agent's context at each model call it reported, as
    ``[message_index, input_tokens]`` pairs; ``compactions`` its own compactions as
    ``[message_index, tokens_before, tokens_after]``.
    """

    __tablename__ = "imported_transcript"

    thread_id: str = Field(
        foreign_key="thread.id", ondelete="CASCADE", primary_key=True, max_length=32
    )
    format: str = Field(max_length=32)
    filename: str = Field(max_length=300)
    source: str = Field(default="", sa_type=Text)
    message_count: int = 0
    model: str | None = Field(default=None, max_length=200)
    usage: list[Any] = Field(default_factory=list, sa_type=JSONValue)
    compactions: list[Any] = Field(default_factory=list, sa_type=JSONValue)
    imported_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class TranscriptReplay(SQLModel, table=True):
    """One finished "Replay with…" run: the policy it used, Baton's context after each
    message (``series``: ``[message_index, tokens]``, thinned), its resets and compactions
    with their handoffs (``events``) and the replay's summary line."""

    __tablename__ = "transcript_replay"
    __table_args__ = (Index("ix_transcript_replay_thread_created", "thread_id", "created_at"),)

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    thread_id: str = Field(foreign_key="thread.id", ondelete="CASCADE", max_length=32)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    assistant_name: str = Field(default="", max_length=200)
    policy: dict[str, Any] = Field(default_factory=dict, sa_type=JSONValue)
    series: list[Any] = Field(default_factory=list, sa_type=JSONValue)
    events: list[Any] = Field(default_factory=list, sa_type=JSONValue)
    summary: dict[str, Any] = Field(default_factory=dict, sa_type=JSONValue)
