"""The handoff artifact: what one session leaves for the next after a context reset.

``HandoffArtifact`` is the validated shape; ``to_markdown``/``from_markdown`` give the
``HANDOFF-{n}.md`` file (exact round-trip), and ``artifact_to_json``/``artifact_from_json`` are the
one JSON adapter used for storage and events.
"""

from __future__ import annotations

import json
import logging
import re
import textwrap
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from langchain_core.utils.json import parse_partial_json
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, TypeAdapter, field_validator

from agent_core.validation import sanitize_text

__all__ = [
    "FileChange",
    "Todo",
    "HandoffArtifact",
    "HandoffTrigger",
    "artifact_to_json",
    "artifact_from_json",
    "handoff_filename",
    "handoff_context_message",
    "REQUIRED_FIELDS",
    "draft_from_text",
    "draft_from_value",
]

log = logging.getLogger(__name__)

HandoffTrigger = Literal["auto", "manual", "overflow"]
TodoStatus = Literal["pending", "in_progress", "completed"]

_STRICT = ConfigDict(extra="forbid", validate_assignment=True)


def _one_line(value: str) -> str:
    # Paths, evidence and todo text are rendered on a single markdown line.
    return " ".join(value.split())


class FileChange(BaseModel):
    """A file the session modified; ``verified`` means a tool call proves it."""

    model_config = _STRICT
    path: str = Field(min_length=1)
    verified: bool
    evidence: str | None = None

    @field_validator("path", "evidence")
    @classmethod
    def _single_line(cls, value: str | None) -> str | None:
        return None if value is None else _one_line(value) or None


class Todo(BaseModel):
    """One todo item as the agent's todo tool last recorded it."""

    model_config = _STRICT
    content: str
    status: TodoStatus = "pending"
    id: str | None = None
    parent_id: str | None = None

    @field_validator("content", "id", "parent_id")
    @classmethod
    def _single_line(cls, value: str | None) -> str | None:
        return None if value is None else _one_line(value)


Utilization = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class HandoffArtifact(BaseModel):
    """Structured state handed from session ``session_number`` to the next one."""

    model_config = _STRICT
    session_number: int = Field(ge=1)
    trigger: HandoffTrigger
    utilization: Utilization
    model: str
    created_at: AwareDatetime = Field(default_factory=lambda: datetime.now(UTC))
    focus: str | None = None
    completed_work: list[str] = Field(default_factory=list)
    in_progress: list[str] = Field(default_factory=list)
    remaining_tasks: list[str] = Field(default_factory=list)
    key_decisions: list[str] = Field(default_factory=list)
    files_modified: list[FileChange] = Field(default_factory=list)
    current_state_summary: str = ""
    open_todos: list[Todo] = Field(default_factory=list)
    pinned_files: list[str] = Field(default_factory=list)
    previous_handoff: str | None = None

    @field_validator("pinned_files")
    @classmethod
    def _pinned_single_line(cls, value: list[str]) -> list[str]:
        return [p for p in (_one_line(v) for v in value) if p]

    def to_markdown(self) -> str:
        """Render as ``HANDOFF-{n}.md``; ``from_markdown`` reads it back exactly."""
        return _render(self)

    @classmethod
    def from_markdown(cls, text: str) -> HandoffArtifact:
        """Parse a file written by ``to_markdown``. Raises ``ValueError`` on other text."""
        return _parse(text)


_ADAPTER = TypeAdapter(HandoffArtifact)


def artifact_to_json(artifact: HandoffArtifact) -> str:
    """The artifact as JSON (storage, events)."""
    return _ADAPTER.dump_json(artifact).decode()


def artifact_from_json(data: str | bytes) -> HandoffArtifact:
    """Validate JSON produced by ``artifact_to_json``."""
    return _ADAPTER.validate_json(data)


def handoff_filename(session_number: int) -> str:
    """The file name an artifact of this session is stored under."""
    return f"HANDOFF-{session_number}.md"


def handoff_context_message(artifact: HandoffArtifact) -> str:
    """The text that opens the next session: the artifact plus an instruction to continue."""
    return (
        "<handoff-context>\n"
        f"{artifact.to_markdown()}"
        "</handoff-context>\n\n"
        f"This is a fresh session continuing the work of session {artifact.session_number}. "
        "Continue from the handoff above: do not redo completed work, resume what is in "
        "progress, then work through the remaining tasks."
    )


# --- markdown -----------------------------------------------------------------------------

_LIST_SECTIONS = (
    ("completed_work", "Completed Work"),
    ("in_progress", "In Progress"),
    ("remaining_tasks", "Remaining Tasks"),
    ("key_decisions", "Key Decisions"),
)
_HEADINGS = [title for _, title in _LIST_SECTIONS] + [
    "Files Modified",
    "State Summary",
    "Open Todos",
    "Pinned Files",
]
_META_PREFIX = "<!-- baton-handoff "
_META_FIELDS = ("session_number", "trigger", "utilization", "model", "created_at", "focus",
                "previous_handoff")
_TODO_MARK = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}
_TODO_STATUS = {mark: status for status, mark in _TODO_MARK.items()}


def _render_items(items: list[str]) -> list[str]:
    # First line after "- ", continuation lines indented by two spaces: a list item in any
    # markdown viewer, and unambiguous to parse (no body line can start with "#").
    lines: list[str] = []
    for item in items:
        first, *rest = item.split("\n")
        lines.append(f"- {first}")
        lines.extend(f"  {line}" for line in rest)
    return lines


def _render_files(files: list[FileChange]) -> list[str]:
    lines = []
    for change in files:
        lines.append(f"- {change.path}")
        status = "verified" if change.verified else "unverified"
        if change.evidence:
            lines.append(f"  {status}: {change.evidence}")
        else:
            lines.append(f"  {status}" + ("" if change.verified else " (no tool evidence)"))
    return lines


def _render_todos(todos: list[Todo]) -> list[str]:
    lines = []
    for todo in todos:
        lines.append(f"- {_TODO_MARK[todo.status]} {todo.content}")
        if todo.id is not None:
            lines.append(f"  id: {todo.id}")
        if todo.parent_id is not None:
            lines.append(f"  parent: {todo.parent_id}")
    return lines


def _escape_text(text: str) -> list[str]:
    # A backslash guards lines that could be read as a heading (or as an escape themselves).
    return [("\\" + line if line.startswith(("#", "\\")) else line) for line in text.split("\n")]


def _title(a: HandoffArtifact) -> str:
    line = f"# Handoff: session {a.session_number} ({a.trigger}, {a.utilization:.0%} of context, {a.model})"
    return _one_line(line)


def _render(a: HandoffArtifact) -> str:
    meta = a.model_dump(mode="json", include=set(_META_FIELDS))
    # "--" may only occur inside JSON strings; escaping it keeps "-->" out of the comment.
    meta_json = json.dumps(meta, ensure_ascii=True, sort_keys=True).replace("--", "-\\u002d")
    parts = [f"{_META_PREFIX}{meta_json} -->", _title(a), ""]
    bodies = [_render_items(getattr(a, name)) for name, _ in _LIST_SECTIONS]
    bodies += [
        _render_files(a.files_modified),
        _escape_text(a.current_state_summary) if a.current_state_summary else [],
        _render_todos(a.open_todos),
        _render_items(a.pinned_files),
    ]
    for heading, body in zip(_HEADINGS, bodies, strict=True):
        parts += [f"## {heading}", "", *body, ""]
    return "\n".join(parts)


def _split_sections(lines: list[str]) -> dict[str, list[str]]:
    starts = [i for i, line in enumerate(lines) if line.startswith("## ")]
    titles = [lines[i][3:] for i in starts]
    if titles != _HEADINGS:
        raise ValueError(f"not a Baton handoff file: sections {titles!r}, expected {_HEADINGS!r}")
    ends = starts[1:] + [len(lines)]
    return {lines[s][3:]: lines[s + 2 : e - 1] for s, e in zip(starts, ends, strict=True)}


def _parse_items(body: list[str]) -> list[str]:
    items: list[list[str]] = []
    for line in body:
        if line.startswith("- "):
            items.append([line[2:]])
        elif line.startswith("  ") and items:
            items[-1].append(line[2:])
        else:
            raise ValueError(f"unexpected line in a list section: {line!r}")
    return ["\n".join(parts) for parts in items]


def _parse_files(body: list[str]) -> list[FileChange]:
    files = []
    for path, status in (item.split("\n", 1) for item in _parse_items(body)):
        verified = not status.startswith("unverified")
        rest = status.removeprefix("verified" if verified else "unverified")
        evidence = None if rest in ("", " (no tool evidence)") else rest.removeprefix(": ")
        files.append(FileChange(path=path, verified=verified, evidence=evidence))
    return files


def _parse_todos(body: list[str]) -> list[Todo]:
    todos = []
    for item in _parse_items(body):
        first, *extra = item.split("\n")
        fields = dict(line.split(": ", 1) for line in extra)
        todos.append(
            Todo(content=first[4:], status=_TODO_STATUS[first[:3]], id=fields.get("id"),
                 parent_id=fields.get("parent"))
        )
    return todos


_META_RE = re.compile(r"^<!-- baton-handoff (\{.*\}) -->$")


def _parse(text: str) -> HandoffArtifact:
    lines = text.split("\n")
    match = _META_RE.match(lines[0]) if lines else None
    if match is None:
        raise ValueError("not a Baton handoff file: missing the baton-handoff header line")
    meta = json.loads(match.group(1))
    sections = _split_sections(lines)
    summary = "\n".join(line[1:] if line.startswith("\\") else line
                        for line in sections["State Summary"])
    return HandoffArtifact.model_validate(
        {
            **meta,
            **{name: _parse_items(sections[title]) for name, title in _LIST_SECTIONS},
            "files_modified": _parse_files(sections["Files Modified"]),
            "current_state_summary": summary,
            "open_todos": _parse_todos(sections["Open Todos"]),
            "pinned_files": _parse_items(sections["Pinned Files"]),
        }
    )


# --- reading what a model wrote ---------------------------------------------------------------

REQUIRED_FIELDS = ("completed_work", "remaining_tasks", "current_state_summary")
_DRAFT_LISTS = ("completed_work", "in_progress", "remaining_tasks", "key_decisions",
                "files_modified")
_MAX_ITEMS, _MAX_CHARS = 60, 2000
_SECTION_WORDS = (  # first match wins; keys are checked against the lower-cased heading
    ("in_progress", ("in progress", "in-progress", "ongoing", "current work")),
    ("completed_work", ("completed", "done", "finished", "accomplished")),
    ("remaining_tasks", ("remaining", "next step", "todo", "to do", "pending", "next")),
    ("key_decisions", ("decision",)),
    ("files_modified", ("file",)),
    ("current_state_summary", ("state", "summary", "status")),
)
_HEADING_RE = re.compile(r"^\s{0,3}(?:#{1,6}\s*(.+?)\s*#*|\*\*(.+?):?\*\*:?|([A-Z][\w /-]{2,40}):)\s*$")
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
        name = key if key in (*_DRAFT_LISTS, "current_state_summary") else _section_of(str(key))
        if name == "current_state_summary":
            draft[name] = _clip(_as_text(item) if not isinstance(item, list)
                                else "\n".join(_as_list(item)))
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
        if name == "current_state_summary":
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
        log.warning("a handoff reply of %d characters had no JSON and no recognisable sections; "
                    "the handoff is built from the tool facts", len(text))
    return draft
