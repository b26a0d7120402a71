"""The lines that stand for what a budget left out of an artifact, so nothing leaves silently.

Each names how many items went and where they can be read: a request by its stored place
(``1:3,9 2:4`` is messages 3 and 9 of session 1 and message 4 of session 2, which
``read_history`` shows), a commit by its place in the range ``git log`` lists, anything else
by the earlier handoff files (``HANDOFF-*.md``) and ``search_history``. A later trim merges
its items into the line already there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

__all__ = [
    "is_omitted",
    "requests_line",
    "named_places",
    "named_before",
    "commits_line",
    "named_commits",
    "count_line",
    "split_marker",
]

_MARK = "(omitted: "
_COUNT_RE = re.compile(r"^\(omitted: (\d+) ")
_PLACES_RE = re.compile(r"(\d+):(\d+(?:,\d+)*)")
_RANGE_RE = re.compile(r"commits, ([0-9a-f]{7,40})…([0-9a-f]{7,40})")
_SESSIONS_RE = re.compile(r"from sessions (\d+)-(\d+)")
_UP_TO_RE = re.compile(r"every user message up to (\d+):(\d+) not listed here")
_MAX_PLACES_CHARS = 400


def is_omitted(item: str) -> bool:
    return item.startswith(_MARK) and item.endswith(")")


def split_marker(items: Sequence[str], kind: str) -> tuple[str | None, list[str]]:
    """The list's marker line of ``kind`` (e.g. "requests") and the other items."""
    marker = next((i for i in items if is_omitted(i) and f" {kind}" in i.split(";")[0]), None)
    return marker, [i for i in items if i is not marker]


def _count(marker: str | None) -> int:
    match = _COUNT_RE.match(marker or "")
    return int(match.group(1)) if match else 0


def named_places(items: Iterable[str]) -> set[tuple[int, int]]:
    """Every (session, message) the request lines among ``items`` name one by one."""
    places: set[tuple[int, int]] = set()
    for item in items:
        if is_omitted(item) and "requests" in item and "read_history" in item:
            for session, numbers in _PLACES_RE.findall(item.split("read_history", 1)[-1]):
                places.update((int(session), int(n)) for n in numbers.split(","))
    return places


def named_before(items: Iterable[str]) -> tuple[int, int] | None:
    """The place up to which a request line among ``items`` names every user message not
    listed (when there were too many to name one by one)."""
    found = [
        (int(m.group(1)), int(m.group(2)))
        for item in items
        if is_omitted(item)
        for m in [_UP_TO_RE.search(item)]
        if m
    ]
    return max(found) if found else None


def _places_text(places: Iterable[tuple[int, int]]) -> str:
    by_session: dict[int, list[int]] = {}
    for session, message in sorted(set(places)):
        by_session.setdefault(session, []).append(message)
    return " ".join(f"{s}:{','.join(map(str, ms))}" for s, ms in by_session.items())


def requests_line(marker: str | None, places: Sequence[tuple[int, int] | None], count: int) -> str:
    """The requests line for ``count`` more answered requests (``places``: where each is
    stored, when known), merged with the line already there."""
    total = _count(marker) + count
    known = named_places([marker] if marker else []) | {p for p in places if p is not None}
    text = _places_text(known)
    if known and len(text) <= _MAX_PLACES_CHARS and len(known) == total:
        return (
            f"(omitted: {total} earlier answered requests; read_history(session, start) at {text})"
        )
    # Too many to name one by one: they are the oldest, so every user message up to the
    # newest of them that is not listed is one (or the same words as a listed one).
    before = named_before([marker] if marker else [])
    if all(p is not None for p in places) and (known or before) and (before or len(known) == total):
        candidates: list[tuple[int, int]] = [*known, *([before] if before else [])]
        last = max(candidates)
        return (
            f"(omitted: {total} earlier answered requests: every user message up to "
            f"{last[0]}:{last[1]} not listed here; search_history finds them by words)"
        )
    span = _SESSIONS_RE.search(marker or "")
    sessions = sorted(
        {s for s, _ in known} | ({int(span.group(1)), int(span.group(2))} if span else set())
    )
    where = f" from sessions {sessions[0]}-{sessions[-1]}" if sessions else ""
    return f"(omitted: {total} earlier answered requests{where}; search_history finds them)"


def commits_line(marker: str | None, shas: Sequence[str]) -> str:
    """The commits line for ``shas`` (oldest first), merged with the line already there."""
    total = _count(marker) + len(shas)
    found = _RANGE_RE.search(marker or "")
    first = found.group(1) if found else shas[0][:7]
    last = shas[-1][:7] if shas else (found.group(2) if found else first)
    return f"(omitted: {total} earlier commits, {first}…{last}; git log lists them)"


def named_commits(items: Iterable[str], shas: Sequence[str]) -> set[str]:
    """The commits of ``shas`` (oldest first) that a commits line among ``items`` spans."""
    named: set[str] = set()
    for item in items:
        found = _RANGE_RE.search(item) if is_omitted(item) else None
        if found is None:
            continue
        starts = [i for i, s in enumerate(shas) if s.startswith(found.group(1))]
        ends = [i for i, s in enumerate(shas) if s.startswith(found.group(2))]
        if starts and ends:
            named.update(shas[starts[0] : ends[-1] + 1])
    return named


def count_line(marker: str | None, count: int, what: str) -> str:
    """A line for ``count`` more items of ``what`` (e.g. "earlier completed items")."""
    return (
        f"(omitted: {_count(marker) + count} {what}; earlier HANDOFF-*.md files and "
        "search_history have them)"
    )
