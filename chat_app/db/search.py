"""Full-text search over a thread's stored messages, in the database's own index.

SQLite: the FTS5 table ``message_search`` (contentless, keyed by the message's rowid, kept in
step by triggers; migration 0006). PostgreSQL: a GIN index on the ``simple`` text-search
vector of the same text (migration 0006). Both index a message's content plus its tool calls
with every run of characters other than letters and digits treated as a space, which is how
:mod:`agent_core.storage._search` splits words, so every store finds the same rows.

The rows a query finds are checked again with :func:`agent_core.storage._search.matches`
before they are returned: the index narrows, the shared rule decides. A rowid renumbered by
a ``VACUUM`` or a table rebuild can then cost a hit but never return a wrong one.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlmodel import Session, col, select

from agent_core.storage import history_matches as matches
from agent_core.storage import search_terms, searchable_text
from chat_app.db.models import Message

__all__ = ["SEARCH_OBJECTS", "search_message_rows", "search_owner_rows", "is_search_object"]

#: Schema objects of the search index that no SQLModel model describes (FTS5's table and
#: its shadow tables, the PostgreSQL expression index): schema comparison skips them.
SEARCH_OBJECTS = ("message_search", "ix_message_search")

# The indexed text, in PostgreSQL; the migration's index is built on exactly this.
PG_DOCUMENT = (
    "to_tsvector('simple'::regconfig, regexp_replace("
    "content || ' ' || tool_calls::text, '[^[:alnum:]]+', ' ', 'g'))"
)
_UNSEARCHED = "('event', 'system')"


def is_search_object(name: str | None) -> bool:
    """Whether a table or index belongs to the search index (``message_search_data``…)."""
    return bool(name) and any(name == n or name.startswith(f"{n}_") for n in SEARCH_OBJECTS)


def _sqlite_ids(
    db: Session, thread_id: str, terms: list[str], session_id: str | None, limit: int
) -> list[str]:
    # Every term quoted: FTS5 query syntax (AND, NEAR, column filters) never applies to
    # the agent's words, and quoted terms side by side all have to match.
    query = " ".join(f'"{term}"' for term in terms)
    sql = (
        "SELECT m.id FROM message_search AS s JOIN message AS m ON m.rowid = s.rowid "
        "WHERE message_search MATCH :query AND m.thread_id = :thread_id "
        f"AND m.role NOT IN {_UNSEARCHED} "
        + ("AND m.session_id = :session_id " if session_id else "")
        + "ORDER BY s.rank, m.seq DESC LIMIT :limit"
    )
    params = {"query": query, "thread_id": thread_id, "session_id": session_id, "limit": limit}
    return [row[0] for row in db.execute(text(sql), params)]


def _postgres_ids(
    db: Session, thread_id: str, terms: list[str], session_id: str | None, limit: int
) -> list[str]:
    sql = (
        "SELECT id FROM message, websearch_to_tsquery('simple'::regconfig, :query) AS q "
        f"WHERE thread_id = :thread_id AND role NOT IN {_UNSEARCHED} AND {PG_DOCUMENT} @@ q "
        + ("AND session_id = :session_id " if session_id else "")
        + f"ORDER BY ts_rank({PG_DOCUMENT}, q) DESC, seq DESC LIMIT :limit"
    )
    params = {
        "query": " ".join(terms),
        "thread_id": thread_id,
        "session_id": session_id,
        "limit": limit,
    }
    return [row[0] for row in db.execute(text(sql), params)]


def search_message_rows(
    db: Session, thread_id: str, query: str, *, session_id: str | None, limit: int
) -> list[Message]:
    """The thread's messages holding every word of ``query``, best first (see the module)."""
    terms = search_terms(query)
    if not terms or limit <= 0:
        return []
    find = _postgres_ids if db.get_bind().dialect.name == "postgresql" else _sqlite_ids
    ids = find(db, thread_id, terms, session_id, limit)
    if not ids:
        return []
    rows = {row.id: row for row in db.exec(select(Message).where(col(Message.id).in_(ids)))}
    ordered = [rows[i] for i in ids if i in rows]
    return [row for row in ordered if matches(searchable_text(row.content, row.tool_calls), terms)]


# What a person searches for across their chats: what was said, not tool output or markers.
_SAID = "('user', 'assistant')"


def search_owner_rows(db: Session, owner: str, query: str, *, limit: int) -> list[Message]:
    """The user and assistant messages of all of ``owner``'s threads holding every word of
    ``query``, best first, in the same index and with the same re-check as a thread search."""
    terms = search_terms(query)
    if not terms or limit <= 0:
        return []
    if db.get_bind().dialect.name == "postgresql":
        sql = (
            "SELECT m.id FROM message AS m JOIN thread AS t ON t.id = m.thread_id, "
            "websearch_to_tsquery('simple'::regconfig, :query) AS q "
            # The index's own predicate and expression (thread has neither column), so the
            # planner can use ix_message_search.
            f"WHERE t.owner = :owner AND m.role IN {_SAID} AND m.role NOT IN {_UNSEARCHED} "
            f"AND {PG_DOCUMENT} @@ q "
            f"ORDER BY ts_rank({PG_DOCUMENT}, q) DESC, m.created_at DESC LIMIT :limit"
        )
        params = {"query": " ".join(terms), "owner": owner, "limit": limit}
    else:
        sql = (
            "SELECT m.id FROM message_search AS s JOIN message AS m ON m.rowid = s.rowid "
            "JOIN thread AS t ON t.id = m.thread_id "
            f"WHERE message_search MATCH :query AND t.owner = :owner AND m.role IN {_SAID} "
            "ORDER BY s.rank, m.created_at DESC LIMIT :limit"
        )
        params = {"query": " ".join(f'"{term}"' for term in terms), "owner": owner, "limit": limit}
    ids = [row[0] for row in db.execute(text(sql), params)]
    if not ids:
        return []
    rows = {row.id: row for row in db.exec(select(Message).where(col(Message.id).in_(ids)))}
    return [
        rows[i]
        for i in ids
        if i in rows and matches(searchable_text(rows[i].content, rows[i].tool_calls), terms)
    ]
