"""What the model is told about its stored history: which session holds what, and how to
reread it. Pure text from records; the coordinator reads the store and calls these."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from agent_core.history._tools import read_history_call
from agent_core.storage._records import SessionRecord, StoredMessage

__all__ = ["history_note", "compacted_note", "MAX_LISTED_SESSIONS"]

#: Sessions listed one by one in a handoff's history note; older ones get one line together.
MAX_LISTED_SESSIONS = 12


def _first_request(rows: Sequence[StoredMessage]) -> tuple[int, str] | None:
    for position, row in enumerate(rows, 1):
        if row.role == "user" and not row.meta.get("carried_over_from"):
            return position, " ".join(row.content.split())[:100]
    return None


def _session_line(record: SessionRecord, rows: Sequence[StoredMessage]) -> str:
    # The files each session changed are in the handoff's file list (with their sessions):
    # not said twice.
    parts = [f"- session {record.number}: messages 1-{len(rows)}"]
    first = _first_request(rows)
    if first is not None:
        parts.append(f"first request at message {first[0]}: “{first[1]}”")
    return "; ".join(parts)


def history_note(
    sessions: Sequence[SessionRecord], rows: Mapping[str, Sequence[StoredMessage]]
) -> str:
    """The handoff's paragraph on the stored history of the ended ``sessions`` (by number)."""
    if not sessions:
        return ""
    listed = sessions[-MAX_LISTED_SESSIONS:]
    lines = [
        "<history>",
        "Every message of the earlier sessions is stored verbatim. search_history(query) "
        "finds messages holding every word of a query (session=N searches one session; each "
        "hit names its session and message number); read_history(session, start, end) reads "
        "them. Use "
        "them when the handoff leaves out a detail you need (an error text, a command's "
        "output, what the user said exactly) instead of redoing work.",
    ]
    if len(sessions) > len(listed):
        lines.append(f"- sessions 1-{listed[0].number - 1}: earlier work (search them)")
    lines += [_session_line(record, rows.get(record.id, ())) for record in listed]
    lines.append("</history>")
    return "\n".join(lines)


def compacted_note(session_number: int, first: int, last: int) -> str:
    """The sentence a compaction summary ends with: where its originals are."""
    return (
        f"The summarized messages are stored verbatim as session {session_number}, "
        f"messages {first}-{last}: {read_history_call(session_number, first, last)} reads "
        "them (20 at a time) and search_history(query) searches them."
    )
