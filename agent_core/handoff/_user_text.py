"""The user's own words: which sentences state a rule or a preference, and how a long message
is shortened without losing its head. Pure text functions, shared by the facts-only handoff
and the offline simulator."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = [
    "constraint_sentences",
    "shorten",
    "same_request",
    "request_item",
    "capped",
    "request_body",
    "request_place",
    "request_open",
    "answered",
]

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
            if (
                8 <= len(sentence) <= _MAX_SENTENCE
                and _DIRECTIVE.search(sentence)
                and sentence not in found
            ):
                found.append(sentence)
    return found[:limit]


def shorten(text: str, limit: int) -> str:
    """``text`` cut to about ``limit`` characters, its head kept verbatim (marked by "…")."""
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 1)].rstrip() + "…"


def same_request(kept: str, original: str) -> bool:
    """Whether ``kept`` (an artifact item, tag and all) is ``original`` or its shortened form."""
    kept = request_body(kept)
    return kept == original or (kept.endswith("…") and original.startswith(kept[:-1]))


# --- requests as the artifact lists them --------------------------------------------------
#
# An item of "User Messages" is the user's text verbatim, after a tag saying where it is
# stored and what it is: ``[2:5] text`` (message 5 of session 2), ``[2:7 queued] text`` (typed
# while the agent worked), ``[3:2 open] text`` (not answered yet), ``[1:9 ×3] text`` (sent three
# times, listed where sent last). A text over the cap ends
# with a note naming the call that shows it whole. Without a stored position the tag holds
# the flags alone.

_TAG_RE = re.compile(r"^\[(?:(\d+):(\d+))?((?: ?(?:queued|open|×\d+))*)\] ")
_SHORTENED_RE = re.compile(r"… \[\+[\d,]+ characters(?:: (read_history\([^)]*\)) shows it all)?\]$")


def request_item(
    text: str,
    *,
    where: tuple[int, int] | None = None,
    queued: bool = False,
    open_: bool = False,
    cap: int | None = None,
    times: int = 1,
) -> str:
    """The artifact's line for one user request (see above); ``×N`` when sent N times."""
    flags = [
        flag for flag, on in (("queued", queued), ("open", open_), (f"×{times}", times > 1)) if on
    ]
    place = f"{where[0]}:{where[1]}" if where else ""
    tag = f"[{' '.join(filter(None, [place, *flags]))}] " if (place or flags) else ""
    return tag + (text if cap is None else capped(text, cap, where))


def capped(text: str, cap: int, where: tuple[int, int] | None = None) -> str:
    """``text`` verbatim up to ``cap`` characters; past it (by more than a line's worth), its
    head and a note of what was cut and which call shows it whole."""
    if len(text) <= cap + 40:
        return text
    call = f": read_history(session={where[0]}, start={where[1]}) shows it all" if where else ""
    return f"{text[:cap].rstrip()}… [+{len(text) - cap:,} characters{call}]"


_NOTE_RE = re.compile(r"… \[\+([\d,]+) characters(?:: read_history\([^)]*\) shows it all)?\]$")


def recapped(item: str, cap: int) -> str | None:
    """The item with its text cut to ``cap`` characters (an item cut before is cut again and
    its note counts both cuts); None when it is short enough already."""
    match = _TAG_RE.match(item)
    tag = match.group(0) if match else ""
    text = item[len(tag) :]
    note = _NOTE_RE.search(text)
    head = text[: note.start()] if note else text
    cut_before = int(note.group(1).replace(",", "")) if note else 0
    if len(head) <= cap + 40:
        return None
    return tag + capped(head + "x" * cut_before, cap, request_place(item))


def request_body(item: str) -> str:
    """The user's words of an item, without its tag and shortening note (a shortened text
    keeps its "…")."""
    body = _TAG_RE.sub("", item, count=1)
    return _SHORTENED_RE.sub("…", body)


def request_place(item: str) -> tuple[int, int] | None:
    """(session, message) an item's tag names, if any."""
    match = _TAG_RE.match(item)
    return (int(match.group(1)), int(match.group(2))) if match and match.group(1) else None


def request_open(item: str) -> bool:
    match = _TAG_RE.match(item)
    return bool(match and "open" in match.group(3).split())


def answered(item: str) -> str:
    """The item with its "open" flag dropped: a later completed reply answered it."""
    match = _TAG_RE.match(item)
    if match is None or "open" not in match.group(3).split():
        return item
    place = f"{match.group(1)}:{match.group(2)}" if match.group(1) else ""
    flags = [f for f in match.group(3).split() if f != "open"]
    tag = " ".join(filter(None, [place, *flags]))
    return (f"[{tag}] " if tag else "") + item[match.end() :]
