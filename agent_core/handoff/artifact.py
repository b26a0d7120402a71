"""The handoff artifact: what one session leaves for the next after a context reset.

``HandoffArtifact`` is the validated shape; ``to_markdown``/``from_markdown`` give the
``HANDOFF-{n}.md`` file (exact round-trip), and ``artifact_to_json``/``artifact_from_json`` are the
one JSON adapter used for storage and events.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, TypeAdapter, field_validator

__all__ = [
    "FileChange",
    "Todo",
    "HandoffArtifact",
    "HandoffTrigger",
    "artifact_to_json",
    "artifact_from_json",
    "handoff_filename",
    "handoff_context_message",
]

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
