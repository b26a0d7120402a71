"""The ``HANDOFF-{n}.md`` file: how a :class:`HandoffArtifact` is written as markdown and read
back (exact round-trip of what the markdown shows: :func:`shown`)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from agent_core.handoff._fields import CoverageCheck, FileChange, Todo, TodoStatus

__all__ = [
    "META_FIELDS",
    "OMITTED_RE",
    "grouped",
    "parse_markdown",
    "render_markdown",
    "session_ranges",
]

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
META_FIELDS = (
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
    for number in ordered[1:] + [None]:
        if number is not None and number == previous + 1:
            previous = number
            continue
        parts.append(str(start) if start == previous else f"{start}-{previous}")
        if number is not None:
            start = previous = number
    return ",".join(parts) if ordered else ""


def grouped(files: list[FileChange]) -> list[FileChange]:
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
    for change in grouped(files):
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


_RENDER = {
    "text": _escape_text,
    "items": _render_items,
    "files": _render_files,
    "paths": _render_paths,
    "todos": _render_todos,
    "checks": lambda checks: [f"- {check}" for check in checks if check.total],
}


def render_markdown(title: str, meta: dict[str, Any], value: Callable[[str], Any]) -> str:
    """The file: its header line (``meta``, what only the record reads), the ``title`` heading,
    then each section that has something, ``value(field)`` giving a field's value."""
    # "--" may only occur inside JSON strings; escaping it keeps "-->" out of the comment.
    meta_json = json.dumps(meta, ensure_ascii=True, sort_keys=True).replace("--", "-\\u002d")
    parts = [f"{_META_PREFIX}{meta_json} -->", title, ""]
    for heading, name, kind in _SECTIONS:
        body = _RENDER[kind](value(name))
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


def parse_markdown(text: str) -> dict[str, Any]:
    """The fields a file written by :func:`render_markdown` holds. Raises ``ValueError`` on
    other text."""
    lines = text.split("\n")
    match = _META_RE.match(lines[0]) if lines else None
    if match is None:
        raise ValueError("not a Baton handoff file: missing the baton-handoff header line")
    meta = json.loads(match.group(1))
    sections, layout = _split_sections(lines)
    fields = {
        name: _PARSE[kind](sections[title]) for title, name, kind in layout if title in sections
    }
    return {**meta, **fields}
