"""The user's own words: which sentences state a rule or a preference, and how a long message
is shortened without losing its head. Pure text functions, shared by the facts-only handoff
and the offline simulator."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["constraint_sentences", "shorten", "same_request"]

# A sentence that fixes how the work is done ("never use pandas", "keep it in parser.py").
_DIRECTIVE = re.compile(
    r"\b(?:never|always|must|mustn't|don't|do not|should|shouldn't|only|avoid|prefer|instead"
    r"|keep|no longer|make sure)\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_MAX_SENTENCE = 300


def constraint_sentences(texts: Iterable[str], limit: int = 20) -> list[str]:
    """The sentences of ``texts`` that state a rule or a preference, verbatim, in order."""
    found: list[str] = []
    for text in texts:
        for sentence in _SENTENCE_END.split(text):
            sentence = sentence.strip().lstrip("-*• ").strip()
            if (8 <= len(sentence) <= _MAX_SENTENCE and _DIRECTIVE.search(sentence)
                    and sentence not in found):
                found.append(sentence)
    return found[:limit]


def shorten(text: str, limit: int) -> str:
    """``text`` cut to about ``limit`` characters, its head kept verbatim (marked by "…")."""
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 1)].rstrip() + "…"


def same_request(kept: str, original: str) -> bool:
    """Whether ``kept`` is ``original`` or its shortened form."""
    return kept == original or (kept.endswith("…") and original.startswith(kept[:-1]))
