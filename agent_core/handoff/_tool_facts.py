"""What each tool call of a transcript proves, in every agent dialect :func:`extract_facts`
reads: the tool vocabularies, and the :class:`Collector` that records the files touched, the
shell commands and their outcome, test runs, commits, todos and SWE-agent's text actions.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from agent_core.handoff._artifact import Todo
from agent_core.handoff._grounded import CommandRun, TestRun

# --- tool vocabularies ------------------------------------------------------------------------

_PATH_ARGS = ("path", "file_path", "filename", "notebook_path", "file")
_WRITE_TOOLS = {"write_file", "Write", "write", "create", "create_file"}
_EDIT_TOOLS = {"edit_file", "Edit", "MultiEdit", "NotebookEdit", "edit", "insert", "str_replace"}
_READ_TOOLS = {"read_file", "Read", "open", "view", "cat", "read"}
# The argument holding what a write or edit put in the file (the new text of an edit).
_TEXT_ARGS = ("content", "file_text", "new_string", "new_str", "newText", "new", "text")
_PLAN_SUFFIXES = (".md", ".markdown", ".txt", ".org", ".rst")
_SHELL_TOOLS = {"run_command", "Bash", "bash", "execute", "shell", "terminal"}
# Todo tools: Baton's and deepagents', Claude Code's, opencode's, Codex's plan (its steps).
TODO_TOOLS = {"write_todos", "TodoWrite", "todowrite", "update_plan"}
# Tools that edit the file currently open in SWE-agent's editor (no path argument).
_OPEN_FILE_TOOLS = {"edit", "insert"}
_SWE_NAVIGATION = {
    "submit",
    "find_file",
    "search_file",
    "search_dir",
    "goto",
    "scroll_up",
    "scroll_down",
    "set_cursors",
}

# A command the user interrupted, as agents report it (pi, Claude Code): no outcome at all.
_INTERRUPTED_RE = re.compile(
    r"^\s*(?:Command (?:was )?aborted|\[Request interrupted by user[^\]]*\])\.?\s*$",
    re.IGNORECASE,
)
_EXIT_RE = re.compile(r"\[exit status (-?\d+)\]\s*$")
FAILED_RE = re.compile(
    r"^\s*(error\b|Error:|ERROR:)|Your proposed edit has introduced new syntax error"
    r"|No replacement was performed|did not appear verbatim|String to replace not found",
    re.MULTILINE,
)
_OPEN_FILE_RE = re.compile(r"^\(Open file: (.+?)\)\s*$", re.MULTILINE)
_CWD_RE = re.compile(r"^\(Current directory: (.+?)\)\s*$", re.MULTILINE)
_GIT_COMMIT_OUT_RE = re.compile(r"^\[[\w./-]+(?: \(root-commit\))? ([0-9a-f]{7,40})\] (.+)$", re.M)
# SWE-agent actions: a fenced block, or <command>...</command> in its XML templates.
ACTION_RE = re.compile(r"```[^\n]*\n(.*?)```|<command>\n?(.*?)</command>", re.DOTALL)
# Output with no exit status still shows a failure: a Python traceback, ending in its error.
_TRACEBACK_RE = re.compile(
    r"Traceback \(most recent call last\):.*?^(\w[\w.]*(?:Error|Exception)\b[^\n]*)",
    re.MULTILINE | re.DOTALL,
)
_TEST_CMD_RE = re.compile(
    r"\b(pytest|py\.test|unittest|tox|nox|(npm|yarn|pnpm)( run)? test|jest|vitest|go test"
    r"|cargo test|mvn test|gradle test|make test|rspec|phpunit)\b"
)
_TEST_SUMMARY_RE = re.compile(r"^=+ (.*\b(passed|failed|error|errors|no tests ran)\b.*?) =+$", re.M)
# The line a failing command's output names its error by (the last one wins).
_ERROR_LINE_RE = re.compile(
    r"^(?:E\s+)?(?:\w[\w.]*(?:Error|Exception)\b.*|FAILED .+|error(?:\[\w+\])?: .+|ERROR: .+"
    r"|fatal: .+|npm ERR! .+|make: \*\*\* .+|The following paths are ignored by .+)$",
    re.MULTILINE,
)
# A file named in a failure's output ("tests/test_a.py:12: …", "File \"/repo/a.py\"").
_NAMED_FILE_RE = re.compile(r"(?<![\w.-])(/?(?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z]\w{0,7})\b")


@dataclass
class Collector:
    events: list[tuple[str, str, str]] = field(default_factory=list)  # (kind, raw path, evidence)
    commands: list[CommandRun] = field(default_factory=list)
    tests: list[TestRun] = field(default_factory=list)
    commits: dict[str, str] = field(default_factory=dict)
    todos: list[Todo] = field(default_factory=list)
    open_file: str | None = None
    repo_dirs: set[str] = field(default_factory=set)
    submitted_diff: str | None = None
    pending: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    edits_seen: int = 0  # events already attributed to a command
    index: int = 0  # the message being read
    at: list[int] = field(default_factory=list)  # the message index of each event
    # (message index, todo list) of every write_todos call, and the indices of final replies
    todo_lists: list[tuple[int, list[Todo]]] = field(default_factory=list)
    finals: list[int] = field(default_factory=list)
    said: list[tuple[int, str]] = field(default_factory=list)  # the assistant's own words
    # Outputs of shell runs, text of writes and edits, plan files read, commits and actions in
    # short, by message index: what the work state is read from.
    outputs: list[str] = field(default_factory=list)
    writes: list[tuple[int, str, str, bool]] = field(default_factory=list)
    reads: list[tuple[int, str, str]] = field(default_factory=list)
    commit_at: list[tuple[int, str, str]] = field(default_factory=list)
    actions: list[tuple[int, str, str, str]] = field(default_factory=list)

    def touch(self, kind: str, path: object, evidence: str) -> None:
        if isinstance(path, str) and path.strip() and path.strip() != "n/a":
            self.events.append((kind, path.strip().strip("\"'"), evidence))
            self.at.append(self.index)

    def observe(self, text: str) -> None:
        """SWE-agent's prompt footer says which file is open and where the shell is."""
        if (found := _OPEN_FILE_RE.findall(text)) and found[-1] != "n/a":
            self.open_file = found[-1]
        # SWE-agent checks repositories out at /<repo_name>; deeper directories are `cd`s.
        self.repo_dirs.update(d for d in _CWD_RE.findall(text) if re.fullmatch(r"/[^/]+", d))


def message_text(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif isinstance(block, dict) and block.get("type") == "tool_result":
            parts.append(_block_text(block.get("content")))
    return "\n".join(parts)


def _block_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""


def tool_calls(message: AIMessage) -> list[tuple[str, str, dict[str, Any]]]:
    calls = [(c.get("id") or "", c["name"], dict(c.get("args") or {})) for c in message.tool_calls]
    if calls or isinstance(message.content, str):
        return calls
    # Claude Code transcripts may keep tool_use blocks in the content only.
    return [
        (b.get("id") or "", b.get("name", ""), dict(b.get("input") or {}))
        for b in message.content
        if isinstance(b, dict) and b.get("type") == "tool_use"
    ]


def tool_results(message: BaseMessage) -> list[tuple[str, str, bool]]:
    """(tool_call_id, text, is_error) for ToolMessages and Claude Code tool_result blocks."""
    if isinstance(message, ToolMessage):
        return [(message.tool_call_id, message_text(message), message.status == "error")]
    if isinstance(message.content, str):
        return []
    return [
        (b.get("tool_use_id", ""), _block_text(b.get("content")), bool(b.get("is_error")))
        for b in message.content
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]


def _path_arg(args: Mapping[str, Any]) -> object:
    return next((args[k] for k in _PATH_ARGS if k in args), None)


def apply_call(c: Collector, name: str, args: dict[str, Any], result: str, failed: bool) -> None:
    if name in TODO_TOOLS:
        return  # recorded when the call was made
    if name == "submit" and "diff --git" in result:
        c.submitted_diff = result  # SWE-agent's submit prints the final diff
        return
    if name in _SHELL_TOOLS:
        _apply_shell(c, str(args.get("command", "")), result, failed)
        return
    if failed:
        return
    if name == "str_replace_editor":
        command = args.get("command")
        kind = "read" if command == "view" else "modified"
        c.touch(kind, args.get("path"), f"str_replace_editor {command}")
        return
    path = _path_arg(args)
    if name in _OPEN_FILE_TOOLS and path is None:
        path = c.open_file
    if isinstance(path, str):
        c.actions.append((c.index, name, path, ""))
    if name in _WRITE_TOOLS or name in _EDIT_TOOLS:
        c.touch("modified", path, name)
        text = next((args[k] for k in _TEXT_ARGS if isinstance(args.get(k), str)), None)
        if isinstance(path, str) and text is not None:
            c.writes.append((c.index, path, text, name in _WRITE_TOOLS))
        if name == "create":
            c.open_file = path if isinstance(path, str) else c.open_file
    elif name in _READ_TOOLS:
        c.touch("read", path, name)
        if isinstance(path, str) and path.lower().endswith(_PLAN_SUFFIXES):
            c.reads.append((c.index, path, result))
        if name == "open" and isinstance(path, str):
            c.open_file = path


def _apply_shell(c: Collector, command: str, result: str, failed: bool) -> None:
    if _INTERRUPTED_RE.match(result):
        # The user stopped it: it neither failed nor passed, and nothing is left to fix.
        c.actions.append((c.index, "shell", command, "interrupted"))
        return
    exit_match = _EXIT_RE.search(result)
    status = int(exit_match.group(1)) if exit_match else (1 if failed else None)
    changed = [raw for kind, raw, _ in c.events[c.edits_seen :] if kind == "modified"]
    c.edits_seen = len(c.events)
    traceback = _TRACEBACK_RE.search(result) if status is None else None
    error = (
        traceback.group(1)
        if traceback
        else (_error_line(result) if status not in (None, 0) else None)
    )
    c.commands.append(
        CommandRun(
            command=command,
            exit_status=status,
            changed_before=list(dict.fromkeys(changed)),
            error=" ".join(error.split())[:200] if error else None,
            index=c.index,
            named=_named_files(result) if status not in (None, 0) or error else [],
        )
    )
    c.outputs.append(_EXIT_RE.sub("", result)[-4000:])
    c.actions.append((c.index, "shell", command, "" if status is None else f"exit {status}"))
    for sha, message in _GIT_COMMIT_OUT_RE.findall(result):
        if sha not in c.commits:
            c.commit_at.append((c.index, sha, message))
        c.commits.setdefault(sha, message)
    if _TEST_CMD_RE.search(command):
        c.tests.append(_test_run(command, result, status))
    if status in (None, 0):
        for path in _removed_paths(command):
            c.touch("deleted", path, "rm")


def read_after(c: Collector, position: int) -> list[str]:
    """The files read after a failed run and before the next command: the diagnosis trail."""
    run = c.commands[position]
    if not run.failed:
        return []
    until = c.commands[position + 1].index if position + 1 < len(c.commands) else c.index + 1
    return [
        raw
        for (kind, raw, _), at in zip(c.events, c.at, strict=True)
        if kind == "read" and run.index < at <= until
    ]


def _named_files(result: str) -> list[str]:
    """The files a failed run's output names, in order, at most a few dozen."""
    found = _NAMED_FILE_RE.findall(result[-8000:])
    return list(dict.fromkeys(f for f in found if not f[0].isdigit()))[:40]


def _error_line(result: str) -> str | None:
    """The last line of a failed command's output that names an error, else its last line."""
    tail = _EXIT_RE.sub("", result[-8000:])
    found = _ERROR_LINE_RE.findall(tail)
    if found:
        return re.sub(r"^E\s+", "", found[-1])
    lines = [line for line in tail.splitlines() if line.strip()]
    return lines[-1] if lines else None


def _test_run(command: str, result: str, status: int | None) -> TestRun:
    summaries = _TEST_SUMMARY_RE.findall(result)
    summary = summaries[-1][0] if summaries else None
    failed = (
        status != 0
        if status is not None
        else (None if summary is None else bool(re.search(r"\b(failed|errors?)\b", summary)))
    )
    outcome = "unknown" if failed is None else ("failed" if failed else "passed")
    return TestRun(command=command, outcome=outcome, summary=summary)


def _removed_paths(command: str) -> list[str]:
    if "rm" not in command:  # shlex is slow; almost no command removes files
        return []
    paths: list[str] = []
    for segment in re.split(r"&&|\|\||;|\n", command):
        try:
            words = shlex.split(segment)
        except ValueError:
            continue
        if words[:1] == ["rm"]:
            paths.extend(w for w in words[1:] if not w.startswith("-"))
    return paths


def apply_text_action(c: Collector, action: str, observation: str) -> None:
    """SWE-agent without function calling: the action is the last fenced block of the reply."""
    first = action.strip().split("\n", 1)[0]
    try:
        words = shlex.split(first)
    except ValueError:
        words = first.split()
    if not words:
        return
    name, rest = words[0], words[1:]
    failed = bool(FAILED_RE.search(observation))
    if name in ("create", "open"):
        apply_call(c, name, {"path": rest[0]} if rest else {}, observation, failed)
    elif name in _OPEN_FILE_TOOLS or name == "submit":
        apply_call(c, name, {}, observation, failed)
    elif name not in _SWE_NAVIGATION:
        _apply_shell(c, action.strip(), observation, failed=False)


def record_todos(c: Collector, args: Mapping[str, Any]) -> None:
    """The latest write_todos/TodoWrite call is the todo state (each call sends the full list)."""
    items = args.get("todos", args.get("plan"))
    if isinstance(items, list):
        items = [
            {**item, "content": item.get("content") or item.get("step") or ""}
            for item in items
            if isinstance(item, Mapping)
        ]
        c.todos = [_todo(item) for item in items if str(item["content"]).strip()]
        c.todo_lists.append((c.index, c.todos))


def _todo(item: Mapping[str, Any]) -> Todo:
    status = item.get("status")
    ids = {
        key: None if item.get(key) is None else str(item[key])
        for key in ("id", "parent_id", "blocker")
    }
    if status != "blocked":
        ids["blocker"] = None
    return Todo(
        content=str(item["content"]),
        status=status
        if status in ("pending", "in_progress", "completed", "blocked")
        else "pending",
        **ids,
    )
