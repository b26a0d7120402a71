"""After a reset, can the agent find again what its handoff left out? ``search_history`` probes.

A cut's messages are stored as one session of a thread in a real store, and each probe the
handoff misses is searched for the way an agent would: the probe's words as the query (its
last word dropped when it has more than three, since a probe is often a prefix cut mid-word).
A probe is found when a message on the first page of results (``MAX_HITS``) holds it, so one
``read_history`` call away; the cost is the tokens of the ``search_history`` result the model
would read.

The store is :class:`chat_app.db.store.SqlStore` on a private SQLite file, so the search is
the database's own FTS5 index, as the app runs it by default.

Run as part of ``bench.continuity`` and ``bench.masking``.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from langchain_core.messages import BaseMessage

from agent_core import TokenCounter
from agent_core.context import from_langchain
from agent_core.history import MAX_HITS, make_history_tools
from agent_core.storage import search_terms
from chat_app.db import repo
from chat_app.db.engine import dispose_engine, get_engine, write_session
from chat_app.db.migrate import migrate
from chat_app.db.store import SqlStore

__all__ = ["NOT_IN_MESSAGES", "HistoryTally", "stored_thread", "search_recovers", "flat"]

_COUNT = TokenCounter(model="gpt-4").count_text
#: Probe kinds no stored message can hold: aider's commits are notes of its log (``> Commit
#: …``) that were never sent to the model, so the importer keeps them as events, not messages.
NOT_IN_MESSAGES = ("commits",)


def flat(text: str) -> str:
    return " ".join(text.split())


@dataclass
class HistoryTally:
    """Probes a handoff missed, how many the first page of a search found, at what cost."""

    missed: int = 0
    found: int = 0
    tokens: int = 0

    def add(self, found: bool, tokens: int) -> None:
        self.missed += 1
        self.found += found
        self.tokens += tokens

    def absorb(self, other: HistoryTally) -> None:
        self.missed += other.missed
        self.found += other.found
        self.tokens += other.tokens

    def cell(self) -> str:
        return f"{self.found}/{self.missed}" if self.missed else "-"

    def share(self) -> float | None:
        return self.found / self.missed if self.missed else None


@contextmanager
def stored_thread(messages: Sequence[BaseMessage]) -> Iterator[tuple[SqlStore, str]]:
    """A fresh SQLite store holding ``messages`` as the first session of one thread."""
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'history.db'}"
        migrate(url)
        engine = get_engine(url)
        try:
            with write_session(engine) as session:
                assistant = repo.ensure_default_assistant(session=session)
                thread_id = repo.create_thread(
                    session=session, owner="bench", assistant_id=assistant.id
                ).id
            store = SqlStore(engine)
            first = store.current_session(thread_id)
            store.append(thread_id, first.id, [from_langchain(m) for m in messages])
            yield store, thread_id
        finally:
            dispose_engine(url)


def search_recovers(store: SqlStore, thread_id: str, needle: str) -> tuple[bool, int]:
    """Whether the first page of ``search_history`` for ``needle`` holds it, and the tokens
    of that tool result."""
    words = search_terms(needle)
    query = " ".join(words[:-1] if len(words) > 3 else words)
    if not query:
        return False, 0
    search, _ = make_history_tools(store, thread_id)
    tokens = _COUNT(search.invoke({"query": query}))
    rows = store.search_messages(thread_id, query, limit=MAX_HITS)
    wanted = flat(needle)
    return any(
        wanted in flat(row.content + " " + json.dumps(row.tool_calls)) for row in rows
    ), tokens
