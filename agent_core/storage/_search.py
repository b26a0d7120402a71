"""The words a history search matches on, the same for every store.

Every backend indexes a message as its text plus its tool calls, split into runs of letters
and digits (``agent_core/tools/_builtin.py`` is ``agent``, ``core``, ``tools``, ``py``), compared
without case. A query matches a message holding every one of the query's words. SQLite's
FTS5 ``unicode61`` tokenizer and PostgreSQL's ``simple`` configuration over the same
letters-and-digits runs agree with :func:`search_terms` on that, so the stores return the
same rows (only their ranking differs).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

__all__ = ["MAX_QUERY_TERMS", "search_terms", "searchable_text", "matches", "score"]

#: A query's words beyond this many are ignored: a pasted paragraph is not a search.
MAX_QUERY_TERMS = 12
_WORD = re.compile(r"[^\W_]+")


def search_terms(query: str) -> list[str]:
    """The distinct lower-case words of ``query``, in order, at most :data:`MAX_QUERY_TERMS`."""
    terms: list[str] = []
    for word in _WORD.findall(query.lower()):
        if word not in terms:
            terms.append(word)
    return terms[:MAX_QUERY_TERMS]


def searchable_text(content: str, tool_calls: Sequence[dict[str, Any]]) -> str:
    """What of a stored message is searched: its text and its tool calls (names, arguments)."""
    if not tool_calls:
        return content
    return f"{content} {json.dumps(list(tool_calls), ensure_ascii=False, default=str)}"


def matches(text: str, terms: Sequence[str]) -> bool:
    """Whether ``text`` holds every word of ``terms`` (the in-memory store's search)."""
    words = set(_WORD.findall(text.lower()))
    return bool(terms) and all(term in words for term in terms)


def score(text: str, terms: Sequence[str]) -> float:
    """A simple relevance: occurrences of the terms per word of the text, plus a little
    for every occurrence, so short focused messages rank above long ones."""
    words = _WORD.findall(text.lower())
    if not words:
        return 0.0
    hits = sum(1 for word in words if word in terms)
    return hits / len(words) + hits * 1e-3
