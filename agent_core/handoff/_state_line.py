"""The handoff's state line, computed from the lists it sits above, so the card never says "all
todos done; 0 files changed" over a failing check and five modified files. Pure functions over
a handoff's fields (an artifact's ``model_dump()`` or the JSON a card holds)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from agent_core.handoff._user_text import request_body, request_open

__all__ = ["state_line", "truthful_state", "one_state_per_request", "shown_state"]

_OMITTED_FILES = re.compile(r"^\(omitted: (\d+) files? ")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
# What the computed line says with numbers: a writer's own count or "all done" may not stand
# beside it.
_COUNTS = re.compile(
    r"\b(?:\d+|no|zero|none|all|every|both)\b[^.]{0,30}\b(?:todos?|tasks?|files?|checks?"
    r"|tests?|requests?)\b|\b(?:nothing|only)\b[^.]{0,40}\b(?:left|remain(?:s|ing)?)\b",
    re.IGNORECASE,
)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _files(items: list[Any]) -> int:
    count = 0
    for item in items:
        path = item.get("path", "") if isinstance(item, Mapping) else str(item)
        omitted = _OMITTED_FILES.match(path)
        count += int(omitted.group(1)) if omitted else 1
    return count


def state_line(fields: Mapping[str, Any]) -> str:
    """Where the work stands, counted from the handoff's own lists: todos done of all (the
    blocked ones), files changed, checks still failing, requests still open."""
    todos = [t for t in fields.get("open_todos") or [] if isinstance(t, Mapping)]
    done = sum(
        1 for item in fields.get("completed_work") or [] if str(item).startswith("Completed todo:")
    )
    blocked = sum(1 for t in todos if t.get("status") == "blocked")
    failing = sum(
        1 for line in fields.get("errors_and_fixes") or [] if str(line).startswith("Still failing")
    )
    open_requests = sum(1 for item in fields.get("user_messages") or [] if request_open(str(item)))
    parts = []
    if todos or done:
        parts.append(
            f"{done} of {_plural(done + len(todos), 'todo')} done"
            + (f" ({blocked} blocked)" if blocked else "")
        )
    parts.append(f"{_plural(_files(fields.get('files_modified') or []), 'file')} changed")
    parts.append(f"{_plural(failing, 'check')} still failing" if failing else "no check failing")
    if open_requests:
        parts.append(f"{_plural(open_requests, 'request')} open")
    return "; ".join(parts) + "."


def truthful_state(fields: Mapping[str, Any], summary: str) -> tuple[str, list[str]]:
    """The computed state line followed by the writer's summary without its sentences that
    count or call the work done (the line says that, from the lists), and those sentences."""
    kept, dropped = [], []
    for sentence in _SENTENCE.split(summary.strip()):
        if sentence:
            (dropped if _COUNTS.search(sentence) else kept).append(sentence)
    return " ".join([state_line(fields), *kept]), dropped


def shown_state(fields: Mapping[str, Any]) -> str:
    """The state a card shows for a stored handoff: counted from its own lists, then what its
    writer said beyond counts (a handoff stored before the line was computed included)."""
    return truthful_state(fields, str(fields.get("current_state_summary") or ""))[0]


_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2}


def one_state_per_request(fields: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The completed work without items that name a request still open (the evidence has no
    completed reply after it, so it is open, not done), and those items."""
    open_words = [
        words
        for item in fields.get("user_messages") or []
        if request_open(str(item)) and len(words := _words(request_body(str(item)))) >= 3
    ]
    kept, dropped = [], []
    for item in fields.get("completed_work") or []:
        said = _words(str(item))
        named = any(len(words & said) >= 0.7 * len(words) for words in open_words)
        (dropped if named and not str(item).startswith("Commit ") else kept).append(item)
    return kept, dropped
