"""Grounded facts: what the tools of a transcript prove, independent of what any model claims.

``extract_facts`` reads tool calls and their results in several agent dialects (Baton's own tools,
langchain/deepagents, Claude Code, SWE-agent, aider) and returns ``GroundedFacts``: files modified
and read, shell commands with exit status, test runs, git commits and the last todo state. Every
handoff merges these, so an artifact never forgets what the tools did.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from agent_core.handoff import _facts_aider as aider
from agent_core.handoff._artifact import FileChange, Todo
from agent_core.handoff._evidence import progress_of
from agent_core.handoff._grounded import CommandRun, GitCommit, GroundedFacts, TestRun, UserRequest
from agent_core.handoff._work_state import WorkRecord, work_state_of

__all__ = ["CommandRun", "TestRun", "GitCommit", "GroundedFacts", "extract_facts"]

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
_TODO_TOOLS = {"write_todos", "TodoWrite", "todowrite", "update_plan"}
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
_FAILED_RE = re.compile(
    r"^\s*(error\b|Error:|ERROR:)|Your proposed edit has introduced new syntax error"
    r"|No replacement was performed|did not appear verbatim|String to replace not found",
    re.MULTILINE,
)
_OPEN_FILE_RE = re.compile(r"^\(Open file: (.+?)\)\s*$", re.MULTILINE)
_CWD_RE = re.compile(r"^\(Current directory: (.+?)\)\s*$", re.MULTILINE)
_GIT_COMMIT_OUT_RE = re.compile(r"^\[[\w./-]+(?: \(root-commit\))? ([0-9a-f]{7,40})\] (.+)$", re.M)
# SWE-agent actions: a fenced block, or <command>...</command> in its XML templates.
_ACTION_RE = re.compile(r"```[^\n]*\n(.*?)```|<command>\n?(.*?)</command>", re.DOTALL)
# Output with no exit status still shows a failure: a Python traceback, ending in its error.
_TRACEBACK_RE = re.compile(
    r"Traceback \(most recent call last\):.*?^(\w[\w.]*(?:Error|Exception)\b[^\n]*)",
    re.MULTILINE | re.DOTALL,
)
_DIFF_FILE_RE = re.compile(r"^diff --git a/(.+?) b/(.+?)\s*$", re.MULTILINE)
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
_DEFAULT_ROOTS = ("/repo", "/testbed", "/workspace")
# A file named in a failure's output ("tests/test_a.py:12: …", "File \"/repo/a.py\"").
_NAMED_FILE_RE = re.compile(r"(?<![\w.-])(/?(?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z]\w{0,7})\b")


@dataclass
class _Collector:
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


def _text(message: BaseMessage) -> str:
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


def _tool_calls(message: AIMessage) -> list[tuple[str, str, dict[str, Any]]]:
    calls = [(c.get("id") or "", c["name"], dict(c.get("args") or {})) for c in message.tool_calls]
    if calls or isinstance(message.content, str):
        return calls
    # Claude Code transcripts may keep tool_use blocks in the content only.
    return [
        (b.get("id") or "", b.get("name", ""), dict(b.get("input") or {}))
        for b in message.content
        if isinstance(b, dict) and b.get("type") == "tool_use"
    ]


def _tool_results(message: BaseMessage) -> list[tuple[str, str, bool]]:
    """(tool_call_id, text, is_error) for ToolMessages and Claude Code tool_result blocks."""
    if isinstance(message, ToolMessage):
        return [(message.tool_call_id, _text(message), message.status == "error")]
    if isinstance(message.content, str):
        return []
    return [
        (b.get("tool_use_id", ""), _block_text(b.get("content")), bool(b.get("is_error")))
        for b in message.content
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]


def _path_arg(args: Mapping[str, Any]) -> object:
    return next((args[k] for k in _PATH_ARGS if k in args), None)


def _apply_call(c: _Collector, name: str, args: dict[str, Any], result: str, failed: bool) -> None:
    if name in _TODO_TOOLS:
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


def _apply_shell(c: _Collector, command: str, result: str, failed: bool) -> None:
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


def _read_after(c: _Collector, position: int) -> list[str]:
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


def _apply_text_action(c: _Collector, action: str, observation: str) -> None:
    """SWE-agent without function calling: the action is the last fenced block of the reply."""
    first = action.strip().split("\n", 1)[0]
    try:
        words = shlex.split(first)
    except ValueError:
        words = first.split()
    if not words:
        return
    name, rest = words[0], words[1:]
    failed = bool(_FAILED_RE.search(observation))
    if name in ("create", "open"):
        _apply_call(c, name, {"path": rest[0]} if rest else {}, observation, failed)
    elif name in _OPEN_FILE_TOOLS or name == "submit":
        _apply_call(c, name, {}, observation, failed)
    elif name not in _SWE_NAVIGATION:
        _apply_shell(c, action.strip(), observation, failed=False)


def _record_todos(c: _Collector, args: Mapping[str, Any]) -> None:
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


def _detect_dialect(messages: Sequence[BaseMessage], metadata: Mapping[str, Any]) -> str:
    declared = str(metadata.get("format") or metadata.get("dialect") or "")
    if declared in ("swe_agent", "aider"):
        return declared
    sample = "\n".join(_text(m) for m in messages[:6])
    if "(Open file:" in sample or "(Current directory:" in sample:
        return "swe_agent"
    return "aider" if "aider" in declared else "tools"


def _walk(c: _Collector, messages: Sequence[BaseMessage], dialect: str) -> bool:
    """Feed every message to the collector; returns whether aider edit lines were seen."""
    text_action: str | None = None
    aider_applied = False
    for index, message in enumerate(messages):
        c.index = index
        text = _text(message)
        if isinstance(message, AIMessage):
            calls = _tool_calls(message)
            for call_id, name, args in calls:
                c.pending[call_id] = (name, args)
                if name in _TODO_TOOLS:
                    _record_todos(c, args)
            if text.strip():
                c.said.append((index, text))
            if dialect == "swe_agent" and not calls:
                blocks = _ACTION_RE.findall(text)
                text_action = "".join(blocks[-1]) if blocks else None
            if _is_final(dialect, calls, text, text_action):
                c.finals.append(index)
        for call_id, result, is_error in _tool_results(message):
            if call_id in c.pending:
                name, args = c.pending.pop(call_id)
                _apply_call(c, name, args, result, is_error or bool(_FAILED_RE.search(result)))
        if not isinstance(message, AIMessage) and text_action is not None:
            _apply_text_action(c, text_action, text)
            text_action = None
        if dialect == "swe_agent" and not isinstance(message, AIMessage):
            c.observe(text)
        if dialect == "aider":
            aider_applied = aider.apply_log_lines(c, text) or aider_applied
    return aider_applied


# Human-role messages that are not the user speaking: session openings, summaries, aider's
# /commands (never sent) and reflections (aider's own error reports), records an importer marks
# ``not_user`` (Claude Code's meta records, notifications, slash commands, hook output), and a
# message carried over from the previous session (already among its requests).
_CONTEXT_OPENINGS = ("<handoff-context>", "<summary>", "<pinned")
_NOT_REQUESTS = frozenset({"handoff", "pinned", "summary"})
_NOT_USER_FLAGS = ("baton_not_sent", "aider_reflection", "not_user", "carried_over_from")
# Text a tool writes as a user turn: aider sends its linter's report this way.
_TOOL_WRITTEN = ("# Fix any errors below, if possible.",)
# A harness's instructions after the task (SWE-agent: "INSTRUCTIONS:" up to its prompt footer).
_HARNESS_TAIL = re.compile(r"\n\s*INSTRUCTIONS:\n.*\Z|\n\(Open file: [^\n]*\)\s*\n.*\Z", re.DOTALL)


def _is_final(dialect: str, calls: list, text: str, action: str | None) -> bool:
    """Whether an assistant message completes its turn: a reply with no tool call (aider's
    every reply); for SWE-agent, whose every step acts, only its submission."""
    if dialect == "swe_agent":
        return any(name == "submit" for _, name, _ in calls) or bool(
            action and action.strip().split("\n", 1)[0].strip() == "submit"
        )
    return not calls and bool(text.strip())


def _is_edit(evidence: str) -> bool:
    """Whether the tool named by ``evidence`` changed part of a file (not a whole write)."""
    return any(word in evidence.lower() for word in ("edit", "str_replace", "insert"))


def task_text(text: str) -> str:
    """A request without the harness instructions wrapped around it."""
    return _HARNESS_TAIL.sub("", text).strip()


def _user_requests(
    messages: Sequence[BaseMessage], dialect: str, finals: Sequence[int]
) -> list[UserRequest]:
    """Everything the user asked for, oldest first, typed while the agent worked included.
    SWE-agent's observations arrive as user turns, so there the task statement (the first user
    message) is the request. A request is answered once a completed reply follows it."""
    last_final = finals[-1] if finals else -1
    requests = []
    for index, message in enumerate(messages):
        if not isinstance(message, HumanMessage):
            continue
        extra = message.additional_kwargs
        if extra.get("baton_kind") in _NOT_REQUESTS or any(map(extra.get, _NOT_USER_FLAGS)):
            continue
        text = task_text(_text(message))
        if text and not text.startswith(_CONTEXT_OPENINGS + _TOOL_WRITTEN):
            requests.append(
                UserRequest(
                    text=text,
                    index=index,
                    queued=bool(extra.get("queued")),
                    answered=index < last_final,
                )
            )
            if dialect == "swe_agent":
                break
    return _once(requests)


def _once(requests: list[UserRequest]) -> list[UserRequest]:
    """Each text once, where it was sent last, counting how often it was sent."""
    times: dict[str, int] = {}
    for request in requests:
        times[request.text] = times.get(request.text, 0) + 1
    last = {request.text: request for request in requests}
    return [r.model_copy(update={"times": times[r.text]}) for r in requests if last[r.text] is r]


def _roots(workspace_root: str | None, metadata: Mapping[str, Any], c: _Collector) -> list[str]:
    roots = [workspace_root, metadata.get("workspace_root"), metadata.get("cwd"), *c.repo_dirs]
    repo_name = metadata.get("repo_name")
    if isinstance(repo_name, str) and repo_name:
        roots.append("/" + repo_name.strip("/"))
    roots.extend(_DEFAULT_ROOTS)
    cleaned = [posixpath.normpath(r) for r in roots if isinstance(r, str) and r.startswith("/")]
    return sorted(set(cleaned), key=len, reverse=True)


def _normalize(path: str, roots: Iterable[str]) -> str:
    """Workspace-relative path: strip the longest matching root, "./" and redundant parts."""
    norm = posixpath.normpath(path.replace("\\", "/"))
    for root in roots:
        if root != "/" and norm.startswith(root + "/"):
            return norm[len(root) + 1 :]
    return norm


def _submission(metadata: Mapping[str, Any]) -> str | None:
    info = metadata.get("info")
    value = metadata.get("submission")
    if value is None and isinstance(info, Mapping):
        value = info.get("submission")
    return value if isinstance(value, str) else None


def _files(c: _Collector, roots: list[str], submission: str | None) -> tuple[dict, dict, list]:
    modified: dict[str, str] = {}
    read: dict[str, None] = {}
    scratch: dict[str, None] = {}
    for kind, raw, evidence in c.events:
        path = _normalize(raw, roots)
        if kind == "modified":
            modified[path] = evidence
            scratch.pop(path, None)
        elif kind == "read":
            read.setdefault(path, None)
        elif kind == "deleted" and path in modified:
            # Created or edited, then removed: not part of the session's net change.
            del modified[path]
            scratch[path] = None
    if submission is not None:
        # SWE-agent's submission is the final deliverable: a diff of the repository, or (CTF) an
        # answer with no repository change. Either way it is the authority on the net change.
        in_diff = list(dict.fromkeys(b for _, b in _DIFF_FILE_RE.findall(submission)))
        scratch.update((p, None) for p in modified if p not in in_diff)
        modified = {
            p: "; ".join(filter(None, (modified.get(p), "submission diff"))) for p in in_diff
        }
    return modified, read, list(scratch)


def _action_line(name: str, target: str, status: str, roots: list[str]) -> str:
    if name == "shell":
        command = " ".join(target.split())
        command = command if len(command) <= 60 else command[:57] + "…"
        return f"ran `{command}`" + (f" ({status})" if status else "")
    return f"{name} {_normalize(target, roots)}"


def _work_record(c: _Collector, commands: list[CommandRun], roots: list[str]) -> WorkRecord:
    return WorkRecord(
        shell=list(zip(commands, c.outputs, strict=True)),
        writes=[(at, _normalize(p, roots), text, whole) for at, p, text, whole in c.writes],
        reads=[(at, _normalize(p, roots), text) for at, p, text in c.reads],
        commits=c.commit_at,
        actions=[(at, _action_line(n, t, s, roots)) for at, n, t, s in c.actions],
    )


def extract_facts(
    messages: Sequence[BaseMessage],
    *,
    metadata: Mapping[str, Any] | None = None,
    workspace_root: str | None = None,
) -> GroundedFacts:
    """Collect what the transcript's tool calls prove.

    ``metadata`` is the transcript's metadata (``format``, ``cwd``, ``repo_name``, SWE-agent's
    ``submission``, the aider importer's ``events``); ``workspace_root`` is stripped from absolute paths. Edits whose tool result
    reports a failure are not counted; files removed again with ``rm`` become scratch files.
    """
    meta = metadata or {}
    dialect = _detect_dialect(messages, meta)
    c = _Collector()
    aider_applied = _walk(c, messages, dialect)
    if dialect == "aider":
        aider_applied |= aider.apply_events(c, meta.get("events"), len(messages))
    if dialect == "aider" and not aider_applied:
        aider.apply_edit_blocks(c, (_text(m) for m in messages if isinstance(m, AIMessage)))
    roots = _roots(workspace_root, meta, c)
    modified, read, scratch = _files(c, roots, _submission(meta) or c.submitted_diff)
    requests = _user_requests(messages, dialect, c.finals)
    commands = [
        run.model_copy(
            update={
                "changed_before": list(
                    dict.fromkeys(_normalize(p, roots) for p in run.changed_before)
                ),
                "named": list(
                    dict.fromkeys(
                        _normalize(p, roots) for p in [*run.named, *_read_after(c, position)]
                    )
                ),
            }
        )
        for position, run in enumerate(c.commands)
    ]
    changes = [
        (at, _normalize(raw, roots), _is_edit(evidence))
        for (kind, raw, evidence), at in zip(c.events, c.at, strict=True)
        if kind == "modified"
    ]
    commands, progress = progress_of(
        commands=commands,
        todo_lists=c.todo_lists,
        finals=c.finals,
        said=c.said,
        changes=changes,
        requests=requests,
        kept=set(modified),
        last_index=len(messages) - 1,
    )
    progress = work_state_of(
        progress,
        _work_record(c, commands, roots),
        todo_lists=c.todo_lists,
        said=c.said,
        changes=changes,
        kept=set(modified),
        turn_start=requests[-1].index if requests else -1,
        finals=c.finals,
    )
    return GroundedFacts(
        files_modified=[FileChange(path=p, verified=True, evidence=e) for p, e in modified.items()],
        files_read=[p for p in read if p not in modified],
        scratch_files=scratch,
        commands=commands,
        test_runs=c.tests,
        commits=[GitCommit(sha=s, message=m) for s, m in c.commits.items()],
        todos=c.todos,
        requests=requests,
        progress=progress,
        replies=len(c.finals),
    )
