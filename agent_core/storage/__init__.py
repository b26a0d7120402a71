"""The store's contract (port, records), its in-memory implementation, and what both store
implementations share: client order, forks, workspace names, search."""

from agent_core.storage._client_order import client_order as parse_client_order
from agent_core.storage._client_order import queue_slots
from agent_core.storage._fork import kept_edits, kept_files
from agent_core.storage._memory_store import InMemoryStore
from agent_core.storage._ports import SessionStore
from agent_core.storage._records import (
    MARK_ROLES,
    MARKERS,
    QUEUED,
    ContextEdit,
    NewMessage,
    PendingRecord,
    RowMark,
    SessionRecord,
    StoredMessage,
    delivered_meta,
    utcnow,
)
from agent_core.storage._search import matches as history_matches
from agent_core.storage._search import search_terms, searchable_text
from agent_core.storage._workspace import (
    MAX_PATH_CHARS,
    base_name,
    portable_name,
    portable_names,
    stored_path,
    workspace_path,
)

__all__ = [
    "ContextEdit",
    "InMemoryStore",
    "MARK_ROLES",
    "MARKERS",
    "MAX_PATH_CHARS",
    "NewMessage",
    "PendingRecord",
    "QUEUED",
    "RowMark",
    "SessionRecord",
    "SessionStore",
    "StoredMessage",
    "base_name",
    "delivered_meta",
    "history_matches",
    "kept_edits",
    "kept_files",
    "parse_client_order",
    "portable_name",
    "portable_names",
    "queue_slots",
    "search_terms",
    "searchable_text",
    "stored_path",
    "utcnow",
    "workspace_path",
]
