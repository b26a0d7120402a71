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
    "CoverageCheck",
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
TodoStatus = Literal["pending", "in_progress", "completed", "blocked"]
CheckKind = Literal["files", "todos", "requests", "commits", "pinned"]

_STRICT = ConfigDict(extra="forbid", validate_assignment=True)


def _one_line(value: str) -> str:
    # Paths, evidence and todo text are rendered on a single markdown line.
    return " ".join(value.split())


class FileChange(BaseModel):
    """A file the thread modified; ``verified`` means a tool call proves it; ``sessions`` are
    the sessions that modified it (empty in artifacts written before it was recorded)."""

    model_config = _STRICT
    path: str = Field(min_length=1)
    verified: bool
    evidence: str | None = None
    sessions: list[Annotated[int, Field(ge=1)]] = Field(default_factory=list)

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


class CoverageCheck(BaseModel):
    """How many of the grounded items of one kind the artifact holds (e.g. files 17/17)."""

    model_config = _STRICT
    kind: CheckKind
    covered: int = Field(ge=0)
    total: int = Field(ge=0)

    def __str__(self) -> str:
        return f"{self.kind} {self.covered}/{self.total}"


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
    # v2: the thread's own words, carried through every reset (absent from v1 artifacts).
    goal: str = ""
    constraints: list[str] = Field(default_factory=list)
    user_messages: list[str] = Field(default_factory=list)
    completed_work: list[str] = Field(default_factory=list)
    in_progress: list[str] = Field(default_factory=list)
    next_step: str = ""
    remaining_tasks: list[str] = Field(default_factory=list)
    key_decisions: list[str] = Field(default_factory=list)
    errors_and_fixes: list[str] = Field(default_factory=list)
    files_modified: list[FileChange] = Field(default_factory=list)
    files_read: list[str] = Field(default_factory=list)
    current_state_summary: str = ""
    open_todos: list[Todo] = Field(default_factory=list)
    pinned_files: list[str] = Field(default_factory=list)
    checks: list[CoverageCheck] = Field(default_factory=list)
    previous_handoff: str | None = None

    @field_validator("pinned_files", "files_read")
    @classmethod
    def _paths_single_line(cls, value: list[str]) -> list[str]:
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


def handoff_context_message(artifact: HandoffArtifact, *, history: str = "") -> str:
    """The text that opens the next session: the artifact plus an instruction to continue,
    and ``history`` (which stored session holds what, how to reread it) when given."""
    return (
        "<handoff-context>\n"
        f"{artifact.to_markdown()}"
        "</handoff-context>\n\n"
        + (f"{history}\n\n" if history else "")
        + f"This is a fresh session continuing the work of session {artifact.session_number}. "
        "Continue from the handoff above: do not redo completed work, resume what is in "
        "progress, then work through the remaining tasks."
    )


# --- markdown -----------------------------------------------------------------------------

# (heading, field, how the body is written), in file order. v1 files lack the v2 sections.
_SECTIONS = (
    ("Goal", "goal", "text"),
    ("Constraints", "constraints", "items"),
    ("User Messages", "user_messages", "items"),
    ("Completed Work", "completed_work", "items"),
    ("In Progress", "in_progress", "items"),
    ("Next Step", "next_step", "text"),
    ("Remaining Tasks", "remaining_tasks", "items"),
    ("Key Decisions", "key_decisions", "items"),
    ("Errors and Fixes", "errors_and_fixes", "items"),
    ("Files Modified", "files_modified", "files"),
    ("Files Read", "files_read", "items"),
    ("State Summary", "current_state_summary", "text"),
    ("Open Todos", "open_todos", "todos"),
    ("Pinned Files", "pinned_files", "items"),
    ("Checks", "checks", "checks"),
)
_HEADINGS = [title for title, _, _ in _SECTIONS]
_V1_HEADINGS = ["Completed Work", "In Progress", "Remaining Tasks", "Key Decisions",
                "Files Modified", "State Summary", "Open Todos", "Pinned Files"]
_META_PREFIX = "<!-- baton-handoff "
_META_FIELDS = ("session_number", "trigger", "utilization", "model", "created_at", "focus",
                "previous_handoff")
_TODO_MARK = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]", "blocked": "[!]"}
_TODO_STATUS = {mark: status for status, mark in _TODO_MARK.items()}
_CHECK_RE = re.compile(r"^(\w+) (\d+)/(\d+)$")


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
        if change.sessions:
            lines.append("  sessions: " + ", ".join(map(str, change.sessions)))
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
    if not text:
        return []
    return [("\\" + line if line.startswith(("#", "\\")) else line) for line in text.split("\n")]


def _title(a: HandoffArtifact) -> str:
    line = f"# Handoff: session {a.session_number} ({a.trigger}, {a.utilization:.0%} of context, {a.model})"
    return _one_line(line)


_RENDER = {
    "text": _escape_text,
    "items": _render_items,
    "files": _render_files,
    "todos": _render_todos,
    "checks": lambda checks: [f"- {check}" for check in checks],
}


def _render(a: HandoffArtifact) -> str:
    meta = a.model_dump(mode="json", include=set(_META_FIELDS))
    # "--" may only occur inside JSON strings; escaping it keeps "-->" out of the comment.
    meta_json = json.dumps(meta, ensure_ascii=True, sort_keys=True).replace("--", "-\\u002d")
    parts = [f"{_META_PREFIX}{meta_json} -->", _title(a), ""]
    for heading, name, kind in _SECTIONS:
        parts += [f"## {heading}", "", *_RENDER[kind](getattr(a, name)), ""]
    return "\n".join(parts)


def _split_sections(lines: list[str]) -> dict[str, list[str]]:
    starts = [i for i, line in enumerate(lines) if line.startswith("## ")]
    titles = [lines[i][3:] for i in starts]
    if titles not in (_HEADINGS, _V1_HEADINGS):
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
    for item in _parse_items(body):
        path, status, *extra = item.split("\n")
        verified = not status.startswith("unverified")
        rest = status.removeprefix("verified" if verified else "unverified")
        evidence = None if rest in ("", " (no tool evidence)") else rest.removeprefix(": ")
        sessions = [int(n) for n in extra[0].removeprefix("sessions: ").split(", ")] if extra else []
        files.append(FileChange(path=path, verified=verified, evidence=evidence,
                                sessions=sessions))
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


def _parse_checks(body: list[str]) -> list[CoverageCheck]:
    checks = []
    for item in _parse_items(body):
        match = _CHECK_RE.match(item)
        if match is None:
            raise ValueError(f"unexpected line in the checks section: {item!r}")
        kind, covered, total = match.groups()
        checks.append(CoverageCheck.model_validate(
            {"kind": kind, "covered": int(covered), "total": int(total)}))
    return checks


def _parse_text(body: list[str]) -> str:
    return "\n".join(line[1:] if line.startswith("\\") else line for line in body)


_PARSE = {"text": _parse_text, "items": _parse_items, "files": _parse_files,
          "todos": _parse_todos, "checks": _parse_checks}
_META_RE = re.compile(r"^<!-- baton-handoff (\{.*\}) -->$")


def _parse(text: str) -> HandoffArtifact:
    lines = text.split("\n")
    match = _META_RE.match(lines[0]) if lines else None
    if match is None:
        raise ValueError("not a Baton handoff file: missing the baton-handoff header line")
    meta = json.loads(match.group(1))
    sections = _split_sections(lines)
    fields = {name: _PARSE[kind](sections[title])
              for title, name, kind in _SECTIONS if title in sections}
    return HandoffArtifact.model_validate({**meta, **fields})
