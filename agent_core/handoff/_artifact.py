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
    #: What keeps a ``blocked`` todo from going on, in the agent's words.
    blocker: str | None = None

    @field_validator("content", "id", "parent_id", "blocker")
    @classmethod
    def _single_line(cls, value: str | None) -> str | None:
        return None if value is None else _one_line(value)


class CoverageCheck(BaseModel):
    """How many items of one kind, found by an extraction independent of the writer's, the
    artifact holds (e.g. files 17/17). ``referenced`` of the covered ones are not written out
    but named where they can be read (an "omitted" line); ``missing`` names the first of those
    neither held nor named."""

    model_config = _STRICT
    kind: CheckKind
    covered: int = Field(ge=0)
    total: int = Field(ge=0)
    referenced: int = Field(0, ge=0)
    missing: list[str] = Field(default_factory=list)

    @field_validator("missing")
    @classmethod
    def _single_lines(cls, value: list[str]) -> list[str]:
        return [_one_line(v) for v in value]

    def __str__(self) -> str:
        line = f"{self.kind} {self.covered}/{self.total}"
        if self.referenced:
            line += f", {self.referenced} by reference"
        if self.missing:
            line += ", missing: " + "; ".join(self.missing)
        return line


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
    #: Where a model-written handoff disagreed with the evidence (kept for the card; the
    #: evidence's items were added to the sections).
    disagreements: list[str] = Field(default_factory=list)

    @field_validator("pinned_files", "files_read")
    @classmethod
    def _paths_single_line(cls, value: list[str]) -> list[str]:
        return [p for p in (_one_line(v) for v in value) if p]

    def to_markdown(self) -> str:
        """Render as ``HANDOFF-{n}.md``: what the next session reads. ``from_markdown`` reads
        it back as :meth:`shown` (the markdown leaves out what only the record keeps)."""
        return _render(self)

    @classmethod
    def from_markdown(cls, text: str) -> HandoffArtifact:
        """Parse a file written by ``to_markdown``. Raises ``ValueError`` on other text."""
        return _parse(text)

    def shown(self) -> HandoffArtifact:
        """This artifact as its markdown shows it: without the tool evidence of files, todo
        ids (the ``<todo-state>`` block carries them), checks of nothing, disagreements;
        files in their directory groups, each file's sessions in order."""
        return self.model_copy(
            update={
                "files_modified": _grouped(
                    [
                        f.model_copy(update={"evidence": None, "sessions": sorted(set(f.sessions))})
                        for f in self.files_modified
                    ]
                ),
                "files_read": [
                    f.path
                    for f in _grouped([FileChange(path=p, verified=True) for p in self.files_read])
                ],
                "open_todos": [
                    t.model_copy(update={"id": None, "parent_id": None}) for t in self.open_todos
                ],
                "checks": [c for c in self.checks if c.total],
                "disagreements": [],
            }
        )


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


_TAGGED = re.compile(r"^\[(\d+:\d+)?(?: ?(?:queued|open|×\d+))*\] ")


def _legend(artifact: HandoffArtifact) -> str:
    """What the tags before user messages mean, when there are any."""
    tags = [m.group(0) for m in map(_TAGGED.match, artifact.user_messages) if m]
    if not tags:
        return ""
    parts = []
    if any(re.search(r"\d+:\d+", t) for t in tags):
        parts.append("[S:M] is message M of session S (read_history(session=S, start=M) shows it)")
    if any("queued" in t for t in tags):
        parts.append("“queued”: typed while the agent worked")
    if any("open" in t for t in tags):
        parts.append("“open”: not answered yet")
    if any("×" in t for t in tags):
        parts.append("×N: sent N times")
    return "In User Messages, " + "; ".join(parts) + ".\n\n"


def handoff_context_message(artifact: HandoffArtifact, *, history: str = "") -> str:
    """The text that opens the next session: the artifact plus an instruction to continue,
    and ``history`` (which stored session holds what, how to reread it) when given."""
    return (
        "<handoff-context>\n"
        f"{artifact.to_markdown()}"
        "</handoff-context>\n\n"
        + _legend(artifact)
        + (f"{history}\n\n" if history else "")
        + f"This is a fresh session continuing the work of session {artifact.session_number}. "
        "Continue from the handoff above: do not redo completed work, resume what is in "
        "progress, then work through the remaining tasks."
    )


# --- markdown -----------------------------------------------------------------------------

# (heading, field, how the body is written), in file order: what the next session needs first
# comes first. A section with nothing in it is left out. v1 and v2 files (every section, the
# old order, one file per item) still parse.
_SECTIONS = (
    ("Goal", "goal", "text"),
    ("User Messages", "user_messages", "items"),
    ("Constraints", "constraints", "items"),
    ("In Progress", "in_progress", "items"),
    ("Next Step", "next_step", "text"),
    ("Remaining Tasks", "remaining_tasks", "items"),
    ("Open Todos", "open_todos", "todos"),
    ("Errors and Fixes", "errors_and_fixes", "items"),
    ("Key Decisions", "key_decisions", "items"),
    ("Completed Work", "completed_work", "items"),
    ("Files Modified", "files_modified", "files"),
    ("Files Read", "files_read", "paths"),
    ("State Summary", "current_state_summary", "text"),
    ("Pinned Files", "pinned_files", "items"),
    ("Checks", "checks", "checks"),
)
_V2_SECTIONS = (
    ("Goal", "goal", "text"),
    ("Constraints", "constraints", "items"),
    ("User Messages", "user_messages", "items"),
    ("Completed Work", "completed_work", "items"),
    ("In Progress", "in_progress", "items"),
    ("Next Step", "next_step", "text"),
    ("Remaining Tasks", "remaining_tasks", "items"),
    ("Key Decisions", "key_decisions", "items"),
    ("Errors and Fixes", "errors_and_fixes", "items"),
    ("Files Modified", "files_modified", "v2_files"),
    ("Files Read", "files_read", "items"),
    ("State Summary", "current_state_summary", "text"),
    ("Open Todos", "open_todos", "v2_todos"),
    ("Pinned Files", "pinned_files", "items"),
    ("Checks", "checks", "v2_checks"),
)
_V1_HEADINGS = [
    "Completed Work",
    "In Progress",
    "Remaining Tasks",
    "Key Decisions",
    "Files Modified",
    "State Summary",
    "Open Todos",
    "Pinned Files",
]
_META_PREFIX = "<!-- baton-handoff "
_META_FIELDS = (
    "session_number",
    "trigger",
    "utilization",
    "model",
    "created_at",
    "focus",
    "previous_handoff",
)
_TODO_MARK: dict[TodoStatus, str] = {
    "pending": "[ ]",
    "in_progress": "[~]",
    "completed": "[x]",
    "blocked": "[!]",
}
_TODO_STATUS: dict[str, TodoStatus] = {mark: status for status, mark in _TODO_MARK.items()}
_V2_CHECK_RE = re.compile(r"^(\w+) (\d+)/(\d+)$")
_CHECK_RE = re.compile(r"^(\w+) (\d+)/(\d+)(?:, (\d+) by reference)?(?:, missing: (.*))?$")
#: A line in a file list that stands for files left out (never a path).
OMITTED_RE = re.compile(r"^\(omitted: .*\)$")
# Path parts written as they are; any other is written as a JSON string.
_BARE_NAME = re.compile(r"^[\w.@+=~-](?:[\w.@+=~ -]*[\w.@+=~-])?$")
_BARE_DIR = re.compile(r"^/?[\w.@+=~-]+(?:/[\w.@+=~-]+)*$")
_SESSIONS_RE = re.compile(r"^\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*$")


def _render_items(items: list[str]) -> list[str]:
    # First line after "- ", continuation lines indented by two spaces: a list item in any
    # markdown viewer, and unambiguous to parse (no body line can start with "#").
    lines: list[str] = []
    for item in items:
        first, *rest = item.split("\n")
        lines.append(f"- {first}")
        lines.extend(f"  {line}" for line in rest)
    return lines


def _split_path(path: str) -> tuple[str | None, str]:
    cut = path.rfind("/")
    return (None, path) if cut < 0 else (path[:cut], path[cut + 1 :])


def _part(value: str, bare: re.Pattern[str]) -> str:
    return (
        value
        if bare.match(value) and ", " not in value and " (" not in value
        else json.dumps(value, ensure_ascii=False)
    )


def session_ranges(sessions: list[int]) -> str:
    """``[1, 2, 3, 5]`` as ``1-3,5``."""
    parts: list[str] = []
    ordered = sorted(set(sessions))
    start = previous = ordered[0] if ordered else 0
    for number in ordered[1:] + [None]:  # type: ignore[operator]
        if number is not None and number == previous + 1:
            previous = number
            continue
        parts.append(str(start) if start == previous else f"{start}-{previous}")
        if number is not None:
            start = previous = number
    return ",".join(parts) if ordered else ""


def _grouped(files: list[FileChange]) -> list[FileChange]:
    """Files in directory groups (first appearance order), omitted-lines where they stand."""
    groups: dict[str | None, list[FileChange]] = {}
    order: list[tuple[str, object]] = []
    for change in files:
        if OMITTED_RE.match(change.path):
            order.append(("line", change))
            continue
        directory, _ = _split_path(change.path)
        if directory not in groups:
            groups[directory] = []
            order.append(("dir", directory))
        groups[directory].append(change)
    out: list[FileChange] = []
    for kind, value in order:
        out.extend([value] if kind == "line" else groups[value])  # type: ignore[list-item]
    return out


def _file_entry(change: FileChange, *, with_sessions: bool) -> str:
    _, name = _split_path(change.path)
    entry = ("" if change.verified else "?") + _part(name, _BARE_NAME)
    if with_sessions and change.sessions:
        entry += f" ({session_ranges(change.sessions)})"
    return entry


def _render_file_lines(files: list[FileChange], *, with_sessions: bool) -> list[str]:
    lines: list[str] = []
    current: object = object()
    for change in _grouped(files):
        if OMITTED_RE.match(change.path):
            lines.append(f"- {change.path}")
            current = object()
            continue
        directory, _ = _split_path(change.path)
        entry = _file_entry(change, with_sessions=with_sessions)
        if directory == current:
            lines[-1] += f", {entry}"
        else:
            head = "" if directory is None else _part(directory, _BARE_DIR) + "/: "
            lines.append(f"- {head}{entry}")
            current = directory
    return lines


def _render_files(files: list[FileChange]) -> list[str]:
    return _render_file_lines(files, with_sessions=True)


def _render_paths(paths: list[str]) -> list[str]:
    return _render_file_lines(
        [FileChange(path=p, verified=True) for p in paths], with_sessions=False
    )


def _render_todos(todos: list[Todo]) -> list[str]:
    lines = []
    for todo in todos:
        lines.append(f"- {_TODO_MARK[todo.status]} {todo.content}")
        if todo.blocker:
            lines.append(f"  blocker: {todo.blocker}")
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
    "paths": _render_paths,
    "todos": _render_todos,
    "checks": lambda checks: [f"- {check}" for check in checks if check.total],
}


def _render(a: HandoffArtifact) -> str:
    meta = a.model_dump(mode="json", include=set(_META_FIELDS))
    # "--" may only occur inside JSON strings; escaping it keeps "-->" out of the comment.
    meta_json = json.dumps(meta, ensure_ascii=True, sort_keys=True).replace("--", "-\\u002d")
    parts = [f"{_META_PREFIX}{meta_json} -->", _title(a), ""]
    for heading, name, kind in _SECTIONS:
        body = _RENDER[kind](getattr(a, name))
        if body:
            parts += [f"## {heading}", "", *body, ""]
    return "\n".join(parts)


def _split_sections(lines: list[str]) -> tuple[dict[str, list[str]], tuple]:
    starts = [i for i, line in enumerate(lines) if line.startswith("## ")]
    titles = [lines[i][3:] for i in starts]
    v3 = [title for title, _, _ in _SECTIONS]
    if titles == [title for title, _, _ in _V2_SECTIONS]:
        layout = _V2_SECTIONS
    elif titles == _V1_HEADINGS:
        layout = tuple(entry for entry in _V2_SECTIONS if entry[0] in _V1_HEADINGS)
    elif titles == [t for t in v3 if t in titles]:
        layout = _SECTIONS
    else:
        raise ValueError(f"not a Baton handoff file: sections {titles!r}, expected {v3!r}")
    ends = starts[1:] + [len(lines)] if starts else []
    return {lines[s][3:]: lines[s + 2 : e - 1] for s, e in zip(starts, ends, strict=True)}, layout


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


def _read_part(line: str, at: int, bare_end: tuple[str, ...]) -> tuple[str, int]:
    """One path part at ``line[at:]``: a JSON string, or bare up to the first of ``bare_end``."""
    if line.startswith('"', at):
        value, end = json.JSONDecoder().raw_decode(line, at)
        return value, end
    ends = [i for i in (line.find(mark, at) for mark in bare_end) if i >= 0]
    end = min(ends) if ends else len(line)
    return line[at:end], end


def _parse_sessions(text: str) -> list[int]:
    if not _SESSIONS_RE.match(text):
        raise ValueError(f"unexpected sessions in a file list: {text!r}")
    numbers: list[int] = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        numbers.extend(range(int(first), int(last or first) + 1))
    return numbers


def _parse_file_line(line: str, *, with_sessions: bool) -> list[FileChange]:
    if OMITTED_RE.match(line):
        return [FileChange(path=line, verified=True)]
    directory: str | None = None
    at = 0
    if line.startswith('"'):
        value, end = json.JSONDecoder().raw_decode(line, 0)
        if line.startswith("/: ", end):
            directory, at = value, end + 3
    else:
        cut = line.find("/: ")
        head = line[:cut] if cut >= 0 else ""
        if cut >= 0 and _BARE_DIR.match(head):
            directory, at = head, cut + 3
    files: list[FileChange] = []
    while True:
        verified = not line.startswith("?", at)
        at += 0 if verified else 1
        name, at = _read_part(line, at, (", ", " ("))
        sessions: list[int] = []
        if with_sessions and line.startswith(" (", at):
            close = line.index(")", at)
            sessions, at = _parse_sessions(line[at + 2 : close]), close + 1
        path = name if directory is None else f"{directory}/{name}"
        files.append(FileChange(path=path, verified=verified, sessions=sessions))
        if at >= len(line):
            return files
        if not line.startswith(", ", at):
            raise ValueError(f"unexpected text in a file list: {line!r}")
        at += 2


def _parse_files(body: list[str]) -> list[FileChange]:
    return [f for line in _parse_items(body) for f in _parse_file_line(line, with_sessions=True)]


def _parse_paths(body: list[str]) -> list[str]:
    return [
        f.path for line in _parse_items(body) for f in _parse_file_line(line, with_sessions=False)
    ]


def _parse_todos(body: list[str]) -> list[Todo]:
    todos = []
    for item in _parse_items(body):
        first, *extra = item.split("\n")  # v2 files add "id:" and "parent:" lines
        fields = dict(line.split(": ", 1) for line in extra)
        todos.append(
            Todo(
                content=first[4:],
                status=_TODO_STATUS[first[:3]],
                id=fields.get("id"),
                parent_id=fields.get("parent"),
                blocker=fields.get("blocker"),
            )
        )
    return todos


def _parse_v2_files(body: list[str]) -> list[FileChange]:
    files = []
    for item in _parse_items(body):
        path, status, *extra = item.split("\n")
        verified = not status.startswith("unverified")
        rest = status.removeprefix("verified" if verified else "unverified")
        evidence = None if rest in ("", " (no tool evidence)") else rest.removeprefix(": ")
        sessions = (
            [int(n) for n in extra[0].removeprefix("sessions: ").split(", ")] if extra else []
        )
        files.append(FileChange(path=path, verified=verified, evidence=evidence, sessions=sessions))
    return files


def _parse_checks(body: list[str], pattern: re.Pattern[str] = _CHECK_RE) -> list[CoverageCheck]:
    checks = []
    for item in _parse_items(body):
        match = pattern.match(item)
        if match is None:
            raise ValueError(f"unexpected line in the checks section: {item!r}")
        kind, covered, total, *more = match.groups()
        referenced, missing = (more + [None, None])[:2]
        checks.append(
            CoverageCheck.model_validate(
                {
                    "kind": kind,
                    "covered": int(covered),
                    "total": int(total),
                    "referenced": int(referenced or 0),
                    "missing": missing.split("; ") if missing else [],
                }
            )
        )
    return checks


def _parse_text(body: list[str]) -> str:
    return "\n".join(line[1:] if line.startswith("\\") else line for line in body)


_PARSE = {
    "text": _parse_text,
    "items": _parse_items,
    "files": _parse_files,
    "paths": _parse_paths,
    "todos": _parse_todos,
    "checks": _parse_checks,
    "v2_files": _parse_v2_files,
    "v2_todos": _parse_todos,
    "v2_checks": lambda body: _parse_checks(body, _V2_CHECK_RE),
}
_META_RE = re.compile(r"^<!-- baton-handoff (\{.*\}) -->$")


def _parse(text: str) -> HandoffArtifact:
    lines = text.split("\n")
    match = _META_RE.match(lines[0]) if lines else None
    if match is None:
        raise ValueError("not a Baton handoff file: missing the baton-handoff header line")
    meta = json.loads(match.group(1))
    sections, layout = _split_sections(lines)
    fields = {
        name: _PARSE[kind](sections[title]) for title, name, kind in layout if title in sections
    }
    return HandoffArtifact.model_validate({**meta, **fields})
