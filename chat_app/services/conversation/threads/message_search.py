"""Search the text of every message in an owner's chats, in the database's full-text index
(SQLite FTS5, PostgreSQL tsvector: :mod:`chat_app.db.search`)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict
from sqlmodel import col, select

from agent_core.storage import search_terms
from chat_app.db.models import ChatSession, Thread
from chat_app.db.search import search_owner_rows
from chat_app.services.runtime.backend import Backend

__all__ = ["MessageHit", "search_messages", "snippet"]

MAX_HITS = 30
_SNIPPET_CHARS = 160


class MessageHit(BaseModel):
    """A message that holds every word searched for, and where it is."""

    model_config = ConfigDict(extra="forbid")

    thread_id: str
    thread_title: str
    seq: int
    session_number: int
    role: str
    snippet: str
    created_at: datetime


def snippet(content: str, terms: list[str], width: int = _SNIPPET_CHARS) -> str:
    """About ``width`` characters of ``content`` around the first word searched for."""
    flat = " ".join(content.split())
    lower = flat.lower()
    first = min((i for i in (lower.find(t) for t in terms) if i >= 0), default=0)
    start = max(0, first - width // 3)
    piece = flat[start : start + width]
    return ("…" if start else "") + piece + ("…" if start + width < len(flat) else "")


def search_messages(
    app: Backend, owner: str | None, query: str, limit: int = MAX_HITS
) -> list[MessageHit]:
    """The owner's messages (theirs and the assistant's, in every chat) holding every word
    of ``query``, best match first. A request's copy carried into a new session is left
    out: the hit is where it was typed."""
    if not owner:
        return []
    terms = search_terms(query)
    with app.read() as db:
        rows = [
            row
            for row in search_owner_rows(db, owner, query, limit=limit)
            if not (row.meta or {}).get("carried_over_from")
        ]
        if not rows:
            return []
        titles = dict(
            db.exec(
                select(Thread.id, Thread.title).where(
                    col(Thread.id).in_({row.thread_id for row in rows})
                )
            ).all()
        )
        numbers = dict(
            db.exec(
                select(ChatSession.id, ChatSession.number).where(
                    col(ChatSession.id).in_({row.session_id for row in rows})
                )
            ).all()
        )
        return [
            MessageHit(
                thread_id=row.thread_id,
                thread_title=titles.get(row.thread_id, ""),
                seq=row.seq,
                session_number=numbers.get(row.session_id, 1),
                role=row.role,
                snippet=snippet(row.content, terms),
                created_at=row.created_at,
            )
            for row in rows
        ]
