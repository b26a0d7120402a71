"""aider's evidence for ``extract_facts``: its log lines, the importer's events, edit blocks.

aider has no tool calls. What it did shows as "Applied edit to X", "Commit <sha> <msg>" and
"Added X to the chat" lines (kept by Baton's importer as metadata events, or still inside the
text of other imports), and, failing those, as the SEARCH/REPLACE blocks of its replies.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Protocol

__all__ = ["apply_log_lines", "apply_events", "apply_edit_blocks"]

_APPLIED_RE = re.compile(r"^>?\s*Applied edit to (.+?)\s*$", re.MULTILINE)
_COMMIT_RE = re.compile(r"^>?\s*Commit ([0-9a-f]{7,40}) (.+?)\s*$", re.MULTILINE)
_ADDED_RE = re.compile(r"^>?\s*Added (.+?) to the chat\.?\s*$", re.MULTILINE)
_BLOCK_RE = re.compile(r"^(\S[^\n]*?)\s*\n```[^\n]*\n<<<<<<< SEARCH\n", re.MULTILINE)


class Evidence(Protocol):
    """The part of the facts collector aider's evidence writes to."""

    commits: dict[str, str]
    index: int  # the message an event belongs to

    def touch(self, kind: str, path: object, evidence: str) -> None: ...


def apply_log_lines(c: Evidence, text: str) -> bool:
    """aider's log lines inside a message's text. True if any edit line."""
    applied = _APPLIED_RE.findall(text)
    for path in applied:
        c.touch("modified", path, "aider applied edit")
    for sha, message in _COMMIT_RE.findall(text):
        c.commits.setdefault(sha, message)
    for path in _ADDED_RE.findall(text):
        c.touch("read", path, "aider added to chat")
    return bool(applied)


def apply_events(c: Evidence, events: object, message_count: int) -> bool:
    """Baton's aider importer moves "> ..." lines into metadata events tagged with the number of
    messages before them; only events inside the given messages count. True if any edit."""
    applied = False
    for event in events if isinstance(events, list) else []:
        if not isinstance(event, Mapping) or event.get("message_index", 0) > message_count:
            continue
        kind = event.get("kind")
        c.index = max(int(event.get("message_index", 0)) - 1, 0)  # it follows that message
        if kind == "applied_edit":
            c.touch("modified", event.get("path"), "aider applied edit")
            applied = True
        elif kind == "commit" and isinstance(event.get("hash"), str):
            c.commits.setdefault(event["hash"], str(event.get("message", "")))
        elif kind == "added_file":
            c.touch("read", event.get("path"), "aider added to chat")
    return applied


def apply_edit_blocks(c: Evidence, replies: Iterable[str]) -> None:
    """Without "Applied edit" lines, SEARCH/REPLACE blocks are the only evidence of edits."""
    for text in replies:
        for path in _BLOCK_RE.findall(text):
            c.touch("modified", path, "aider search/replace block")
