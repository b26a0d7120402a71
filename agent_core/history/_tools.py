"""``search_history`` and ``read_history``: the agent rereads what it once saw.

Every original message of a thread stays in the store, whatever a reset, compaction, mask or
todo summary took out of the model's view. These tools reach them through the store port,
bound to one thread: a session is named by its number in that thread, so another thread's
sessions cannot be named at all. Outputs are bounded (hits, characters), so a search costs
at most a few thousand tokens, and they are counted like any tool output.

A message is addressed by its session number and its position in that session (1 = the
session's first stored row, in order), as the search hits, mask placeholders and the handoff
name it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from langchain_core.tools import BaseTool

from agent_core.errors import ToolInputError
from agent_core.storage._ports import SessionStore
from agent_core.storage._records import SessionRecord, StoredMessage
from agent_core.storage._search import search_terms
from agent_core.tools._failures import checked_tool

__all__ = [
    "HISTORY_TOOL_NAMES",
    "make_history_tools",
    "render_row",
    "read_history_call",
    "MAX_HITS",
    "MAX_READ_MESSAGES",
    "MAX_OUTPUT_CHARS",
]

HISTORY_TOOL_NAMES = ("search_history", "read_history")
MAX_HITS = 8
MAX_READ_MESSAGES = 20
MAX_OUTPUT_CHARS = 12_000
_SNIPPET_CHARS = 320
_ROW_CHARS = 4_000


def read_history_call(session: int, start: int, end: int | None = None) -> str:
    """How the agent opens messages ``start``..``end`` of a session."""
    return f"read_history(session={session}, start={start}, end={end if end else start})"


def _calls_text(row: StoredMessage) -> str:
    calls = [
        f"{c.get('name')}({json.dumps(c.get('args', {}), ensure_ascii=False)})"
        for c in row.tool_calls
    ]
    return f"\n[calls: {'; '.join(calls)}]" if calls else ""


def render_row(row: StoredMessage, session: int, position: int, limit: int = _ROW_CHARS) -> str:
    """One stored message as the history tools show it, clipped to ``limit`` characters."""
    who = f"tool {row.name}" if row.role == "tool" and row.name else row.role
    body = row.content + _calls_text(row)
    if len(body) > limit:
        body = (
            f"{body[:limit]}\n[... {len(body) - limit:,} more characters; "
            "read_history shows one message at most this long]"
        )
    return f"--- session {session}, message {position} ({who}) ---\n{body}"


def _snippet(text: str, terms: Sequence[str]) -> str:
    lowered = text.lower()
    at = min((i for i in (lowered.find(t) for t in terms) if i >= 0), default=0)
    start = max(0, at - _SNIPPET_CHARS // 3)
    piece = " ".join(text[start : start + _SNIPPET_CHARS].split())
    return ("…" if start else "") + piece + ("…" if start + _SNIPPET_CHARS < len(text) else "")


class _History:
    def __init__(self, store: SessionStore, thread_id: str):
        self.store = store
        self.thread_id = thread_id

    def _sessions(self) -> list[SessionRecord]:
        return self.store.sessions(self.thread_id)

    def _session(self, number: int) -> SessionRecord:
        sessions = self._sessions()
        for record in sessions:
            if record.number == number:
                return record
        known = ", ".join(str(s.number) for s in sessions) or "none yet"
        raise ToolInputError(f"this thread has no session {number}; its sessions are {known}")

    def search(self, query: str, session: int | None = None) -> str:
        terms = search_terms(query)
        if not terms:
            raise ToolInputError("the query has no words to search for; give a few keywords")
        scope = self._session(session) if session is not None else None
        numbers = {s.id: s.number for s in self._sessions()}
        rows = self.store.search_messages(
            self.thread_id, query, limit=MAX_HITS, session_id=scope.id if scope else None
        )
        if not rows:
            where = f"session {session}" if session is not None else "any session"
            return f"no stored message of {where} holds every word of: {' '.join(terms)}"
        positions: dict[str, dict[int, int]] = {}
        lines = [f"{len(rows)} message(s) hold every word of: {' '.join(terms)} (best first)"]
        for row in rows:
            if row.session_id not in positions:
                stored = self.store.messages(row.session_id)
                positions[row.session_id] = {r.seq: i for i, r in enumerate(stored, 1)}
            number = numbers.get(row.session_id, 0)
            position = positions[row.session_id].get(row.seq, 0)
            who = f"tool {row.name}" if row.role == "tool" and row.name else row.role
            lines.append(
                f"- session {number}, message {position} ({who}): "
                f"{_snippet(row.content + _calls_text(row), terms)}\n"
                f"  open: {read_history_call(number, max(1, position - 1), position + 1)}"
            )
        return _bounded("\n".join(lines))

    def read(self, session: int, start: int, end: int | None = None) -> str:
        record = self._session(session)
        rows = self.store.messages(record.id)
        last = start if end is None else end
        if not rows:
            return f"session {session} has no stored messages yet"
        if start < 1 or last < start or start > len(rows):
            raise ToolInputError(
                f"session {session} holds messages 1 to {len(rows)}; give 1 <= start <= end"
            )
        last = min(last, len(rows), start + MAX_READ_MESSAGES - 1)
        parts = [render_row(rows[i - 1], session, i) for i in range(start, last + 1)]
        note = ""
        if last < (end or start) or last < len(rows):
            note = (
                f"\n[shown {start}-{last} of {len(rows)}; "
                f"{read_history_call(session, last + 1, min(len(rows), last + 10))} reads on]"
            )
        return _bounded("\n".join(parts)) + note


def _bounded(text: str) -> str:
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    return (
        text[:MAX_OUTPUT_CHARS] + f"\n[... {len(text) - MAX_OUTPUT_CHARS:,} characters cut; "
        "ask for fewer messages]"
    )


def make_history_tools(store: SessionStore, thread_id: str) -> list[BaseTool]:
    """``search_history`` and ``read_history`` bound to ``thread_id``'s stored originals."""
    history = _History(store, thread_id)

    def search_history(query: str, session: int = 0) -> str:
        """Find stored messages of this chat (all sessions, compacted or masked ones too)
        holding every word of query; session 0 searches all."""
        return history.search(query, session or None)

    def read_history(session: int, start: int, end: int = 0) -> str:
        """Read stored messages start..end of a session of this chat, verbatim."""
        return history.read(session, start, end or None)

    return [
        checked_tool(search_history, name="search_history"),
        checked_tool(read_history, name="read_history"),
    ]
