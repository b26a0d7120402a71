"""What a timeline marker replaced: the original messages behind a compaction, mask or todo
summary, read when the reader expands the marker (never up front), at most
:data:`MAX_ORIGINALS` of them, each clipped to :data:`ORIGINAL_CHARS`.

The store keeps every original row; the marker's ``meta.edit`` names the session's
``ContextEdit`` and :func:`replaced_rows` picks the rows that edit hides or shortens.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from agent_core import ContextEdit, StoredMessage
from chat_app.services.conversation.threads.chats import owned_thread
from chat_app.services.presentation.timeline import tool_summary
from chat_app.services.runtime.backend import Backend

__all__ = [
    "MAX_ORIGINALS",
    "ORIGINAL_CHARS",
    "OriginalMessage",
    "OriginalsView",
    "replaced_rows",
    "marker_originals",
]

MAX_ORIGINALS = 30
ORIGINAL_CHARS = 2_000
_CONTEXT_ROLES = ("handoff", "pinned", "event", "system")


class _View(BaseModel):
    model_config = ConfigDict(extra="forbid")


class OriginalMessage(_View):
    key: str
    who: str
    content: str


class OriginalsView(_View):
    items: list[OriginalMessage]
    total: int
    note: str


def replaced_rows(rows: Sequence[StoredMessage], edit: ContextEdit) -> list[StoredMessage]:
    """The session's rows ``edit`` took out of the model's view (or masked), in order."""
    if edit.kind == "compaction":
        cut = edit.upto_seq if edit.upto_seq is not None else -1
        return [r for r in rows if r.seq <= cut and r.role not in _CONTEXT_ROLES]
    wanted = set(edit.placeholders) if edit.kind == "mask" else set(edit.seqs)
    return [r for r in rows if r.seq in wanted]


def _who(row: StoredMessage) -> str:
    if row.role == "tool":
        return f"Tool result · {row.name or 'tool'}"
    return {"user": "You", "assistant": "Assistant"}.get(row.role, row.role)


def _text(row: StoredMessage) -> str:
    calls = [tool_summary(c.get("name", ""), c.get("args") or {}) for c in row.tool_calls]
    text = "\n".join(filter(None, [row.content.strip(), *calls]))
    if len(text) > ORIGINAL_CHARS:
        text = text[:ORIGINAL_CHARS] + f"… [{len(text) - ORIGINAL_CHARS:,} more characters]"
    return text


def marker_originals(
    app: Backend, owner: str | None, thread_id: str, marker_id: str
) -> OriginalsView | None:
    """The originals behind marker ``marker_id``; None when it is not such a marker of a
    thread ``owner`` has."""
    if owned_thread(app, owner, thread_id) is None:
        return None
    store = app.store
    for session in reversed(store.sessions(thread_id)):  # markers are mostly recent
        rows = store.messages(session.id)
        marker = next((r for r in rows if r.id == marker_id), None)
        if marker is None:
            continue
        edits = store.context_edits(session.id)
        position = marker.meta.get("edit")
        if (
            marker.role != "event"
            or not isinstance(position, int)
            or not 0 <= position < len(edits)
        ):
            return None
        replaced = replaced_rows(rows, edits[position])
        shown = replaced[:MAX_ORIGINALS]
        note = (
            f"The {len(replaced)} original message{'s' if len(replaced) != 1 else ''}, as stored."
        )

        if len(replaced) > len(shown):
            note = (
                f"The first {len(shown)} of {len(replaced)} original messages; the agent "
                "can read them all with read_history."
            )
        return OriginalsView(
            items=[OriginalMessage(key=r.id, who=_who(r), content=_text(r)) for r in shown],
            total=len(replaced),
            note=note,
        )
    return None
