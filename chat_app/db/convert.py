"""Rows to engine records and back, making every string storable on the way in.

PostgreSQL refuses NUL bytes in text and lone surrogates anywhere, and SQLite would store
text that later fails to decode; sanitizing before the INSERT means a write can never fail
half-way through a transaction because of what a tool printed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_core import NewMessage, PendingRecord, SessionRecord, StoredMessage
from agent_core.validation import sanitize_text
from chat_app.db.models import ChatSession, Message, PendingMessage, new_id, utcnow

__all__ = [
    "clean",
    "clean_optional",
    "message_row",
    "message_values",
    "stored_from_values",
    "stored_message",
    "session_record",
    "pending_record",
]


def clean(value: Any) -> Any:
    """``value`` with every string in it (keys included) passed through ``sanitize_text``."""
    if isinstance(value, str):
        return sanitize_text(value)
    if isinstance(value, dict):
        return {clean(k) if isinstance(k, str) else k: clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(item) for item in value]
    return value


def clean_optional(value: str | None) -> str | None:
    return None if value is None else sanitize_text(value)


def message_values(thread_id: str, session_id: str, message: NewMessage) -> dict[str, Any]:
    """A new message row's column values, its ``seq`` still 0: made (its strings sanitized)
    before the write transaction, which then only numbers and inserts the rows."""
    return {
        "id": new_id(),
        "thread_id": thread_id,
        "session_id": session_id,
        "seq": 0,
        "created_at": utcnow(),
        "role": message.role,
        "content": sanitize_text(message.content),
        "tool_calls": clean(message.tool_calls),
        "tool_call_id": clean_optional(message.tool_call_id),
        "name": clean_optional(message.name),
        "todo_id": clean_optional(message.todo_id),
        "token_count": message.token_count,
        "model": clean_optional(message.model),
        "meta": clean(message.meta),
    }


def message_row(thread_id: str, session_id: str, seq: int, message: NewMessage) -> Message:
    return Message(**{**message_values(thread_id, session_id, message), "seq": seq})


#: The columns :func:`stored_from_columns` reads, in its order.
MESSAGE_COLUMNS = (
    "id",
    "thread_id",
    "session_id",
    "seq",
    "created_at",
    "role",
    "content",
    "tool_calls",
    "tool_call_id",
    "name",
    "todo_id",
    "token_count",
    "model",
    "meta",
)


def message_columns() -> list[Any]:
    return [getattr(Message, name) for name in MESSAGE_COLUMNS]


def stored_from_columns(values: Sequence[Any]) -> StoredMessage:
    """A stored message from a row of :func:`message_columns`: a session's rows are read as
    plain columns, without building (and tracking) an ORM object for each."""
    fields = dict(zip(MESSAGE_COLUMNS, values, strict=True))
    fields["tool_calls"] = list(fields["tool_calls"] or [])
    fields["meta"] = dict(fields["meta"] or {})
    return StoredMessage(**fields)


def stored_from_values(values: dict[str, Any]) -> StoredMessage:
    return stored_from_columns([values[name] for name in MESSAGE_COLUMNS])


def stored_message(row: Message) -> StoredMessage:
    return stored_from_columns([getattr(row, name) for name in MESSAGE_COLUMNS])


def session_record(row: ChatSession) -> SessionRecord:
    return SessionRecord(
        id=row.id,
        thread_id=row.thread_id,
        number=row.number,
        started_at=row.started_at,
        trigger=row.trigger,
        utilization=row.utilization,
        model=row.model,
        handoff=row.handoff,
        parent_id=row.parent_id,
        ended_at=row.ended_at,
    )


def pending_record(row: PendingMessage) -> PendingRecord:
    return PendingRecord(
        id=row.id,
        thread_id=row.thread_id,
        seq=row.seq,
        content=row.content,
        created_at=row.created_at,
        delivered_session_id=row.delivered_session_id,
        client_id=row.client_id,
    )
