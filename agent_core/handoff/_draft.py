"""Reading what a model wrote for a handoff: JSON (fenced, embedded or truncated) or markdown
sections, coerced into draft fields. Never raises; a reply with nothing usable yields ``{}``."""

from __future__ import annotations

import logging
import re
import textwrap
from collections.abc import Mapping
from typing import Any

from langchain_core.utils.json import parse_partial_json

from agent_core.validation import sanitize_text

__all__ = ["REQUIRED_FIELDS", "draft_from_text", "draft_from_value"]

log = logging.getLogger(__name__)

REQUIRED_FIELDS = ("completed_work", "remaining_tasks", "current_state_summary")
_DRAFT_LISTS = (
    "completed_work",
    "in_progress",
    "remaining_tasks",
    "key_decisions",
    "files_modified",
    "constraints",
    "errors_and_fixes",
)
_DRAFT_TEXTS = ("current_state_summary", "next_step", "new_goal")
_MAX_ITEMS, _MAX_CHARS = 60, 2000
_SECTION_WORDS = (  # first match wins; keys are checked against the lower-cased heading
    ("next_step", ("next step",)),
    ("constraints", ("constraint", "rule", "preference")),
    ("errors_and_fixes", ("error", "fix")),
    ("in_progress", ("in progress", "in-progress", "ongoing", "current work")),
    ("completed_work", ("completed", "done", "finished", "accomplished")),
    ("remaining_tasks", ("remaining", "next step", "todo", "to do", "pending", "next")),
    ("key_decisions", ("decision",)),
    ("files_modified", ("file",)),
    ("current_state_summary", ("state", "summary", "status")),
)
_HEADING_RE = re.compile(
    r"^\s{0,3}(?:#{1,6}\s*(.+?)\s*#*|\*\*(.+?):?\*\*:?|([A-Z][\w /-]{2,40}):)\s*$"
)
_BULLET_RE = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+(?:\[[ xX~]\]\s+)?(.*)$")


def _section_of(heading: str) -> str | None:
    lowered = heading.lower()
    return next((key for key, words in _SECTION_WORDS if any(w in lowered for w in words)), None)


def _clip(text: str) -> str:
    return text if len(text) <= _MAX_CHARS else text[: _MAX_CHARS - 1] + "…"


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        # A model's JSON may escape a lone surrogate ("\ud800"): make it storable, not fatal.
        return sanitize_text(value).strip()
    if isinstance(value, Mapping):
        for key in ("path", "file", "text", "content", "description", "title", "task", "item"):
            if isinstance(value.get(key), str):
                return value[key].strip()
        return "; ".join(_as_text(v) for v in value.values() if _as_text(v))
    if isinstance(value, list | tuple):
        return "; ".join(t for t in map(_as_text, value) if t)
    return "" if value is None or isinstance(value, bool) else str(value)


def _as_list(value: Any) -> list[str]:
    if isinstance(value, str):
        value = [line for line in value.split("\n") if line.strip()]
    if not isinstance(value, list | tuple):
        value = [] if value is None else [value]
    items = [_clip(_BULLET_RE.sub(r"\1", text)) for text in map(_as_text, value) if text]
    return items[:_MAX_ITEMS]


def draft_from_value(value: Any) -> dict[str, Any]:
    """Coerce a model's (possibly malformed) JSON value into handoff draft fields.

    Wrong types are converted where the meaning is clear (a string for a list, a list for the
    summary); unknown keys are dropped; strings are clipped. Never raises.
    """
    if not isinstance(value, Mapping):
        return {}
    draft: dict[str, Any] = {}
    for key, item in value.items():
        name = key if key in (*_DRAFT_LISTS, *_DRAFT_TEXTS) else _section_of(str(key))
        if name in _DRAFT_TEXTS:
            draft[name] = _clip(
                _as_text(item) if not isinstance(item, list) else "\n".join(_as_list(item))
            )
        elif name is not None and name not in draft:
            draft[name] = _as_list(item)
    return draft


def _json_candidates(text: str) -> list[str]:
    fenced = re.findall(r"```(?:json)?\s*\n(.*?)(?:```|$)", text, re.DOTALL)
    start = text.find("{")
    return [*fenced, text[start:] if start >= 0 else ""]


def _draft_from_markdown(text: str) -> dict[str, Any]:
    sections: dict[str, list[str]] = {}
    current: str | None = None
    for line in text.split("\n"):
        heading = _HEADING_RE.match(line)
        title = heading and next(g for g in heading.groups() if g)
        if title and (name := _section_of(title)):
            current = name
            sections.setdefault(current, [])
        elif current is not None and line.strip():
            sections[current].append(line)
    draft: dict[str, Any] = {}
    for name, lines in sections.items():
        if name in _DRAFT_TEXTS:
            draft[name] = _clip("\n".join(_BULLET_RE.sub(r"\1", ln).strip() for ln in lines))
        else:
            draft[name] = _as_list(lines)
    return draft


def draft_from_text(text: str) -> dict[str, Any]:
    """Read a model's plain-text answer: JSON (fenced, embedded or truncated), else markdown
    sections. Prose without recognisable sections yields ``{}``. Never raises."""
    for candidate in _json_candidates(text or ""):
        try:
            value = parse_partial_json(candidate.strip())
        except (ValueError, TypeError, RecursionError):
            continue
        if isinstance(value, Mapping) and (draft := draft_from_value(value)):
            return draft
    # A reply indented as a whole (a quoted block, a code sample) is read as if it were not.
    draft = _draft_from_markdown(textwrap.dedent(text or ""))
    if not draft and (text or "").strip():
        log.warning(
            "a handoff reply of %d characters had no JSON and no recognisable sections; "
            "the handoff is built from the tool facts",
            len(text),
        )
    return draft
