"""Grounded facts: what the tools of a transcript prove, independent of what any model claims.

``extract_facts`` reads tool calls and their results in several agent dialects (Baton's own tools,
langchain/deepagents, Claude Code, SWE-agent, aider) and returns ``GroundedFacts``: files modified
and read, shell commands with exit status, test runs, git commits and the last todo state. Every
handoff merges these, so an artifact never forgets what the tools did.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from agent_core.handoff import _facts_aider as aider
from agent_core.handoff._artifact import FileChange
from agent_core.handoff._evidence import progress_of
from agent_core.handoff._grounded import CommandRun, GitCommit, GroundedFacts, TestRun, UserRequest
from agent_core.handoff._tool_facts import (
    ACTION_RE,
    FAILED_RE,
    TODO_TOOLS,
    Collector,
    apply_call,
    apply_text_action,
    message_text,
    read_after,
    record_todos,
    tool_calls,
    tool_results,
)
from agent_core.handoff._work_state import WorkRecord, work_state_of

__all__ = ["CommandRun", "TestRun", "GitCommit", "GroundedFacts", "extract_facts"]

_DIFF_FILE_RE = re.compile(r"^diff --git a/(.+?) b/(.+?)\s*$", re.MULTILINE)
_DEFAULT_ROOTS = ("/repo", "/testbed", "/workspace")


def _detect_dialect(messages: Sequence[BaseMessage], metadata: Mapping[str, Any]) -> str:
    declared = str(metadata.get("format") or metadata.get("dialect") or "")
    if declared in ("swe_agent", "aider"):
        return declared
    sample = "\n".join(message_text(m) for m in messages[:6])
    if "(Open file:" in sample or "(Current directory:" in sample:
        return "swe_agent"
    return "aider" if "aider" in declared else "tools"


def _walk(c: Collector, messages: Sequence[BaseMessage], dialect: str) -> bool:
    """Feed every message to the collector; returns whether aider edit lines were seen."""
    text_action: str | None = None
    aider_applied = False
    for index, message in enumerate(messages):
        c.index = index
        text = message_text(message)
        if isinstance(message, AIMessage):
            calls = tool_calls(message)
            for call_id, name, args in calls:
                c.pending[call_id] = (name, args)
                if name in TODO_TOOLS:
                    record_todos(c, args)
            if text.strip():
                c.said.append((index, text))
            if dialect == "swe_agent" and not calls:
                blocks = ACTION_RE.findall(text)
                text_action = "".join(blocks[-1]) if blocks else None
            if _is_final(dialect, calls, text, text_action):
                c.finals.append(index)
        for call_id, result, is_error in tool_results(message):
            if call_id in c.pending:
                name, args = c.pending.pop(call_id)
                apply_call(c, name, args, result, is_error or bool(FAILED_RE.search(result)))
        if not isinstance(message, AIMessage) and text_action is not None:
            apply_text_action(c, text_action, text)
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
        text = task_text(message_text(message))
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


def _roots(workspace_root: str | None, metadata: Mapping[str, Any], c: Collector) -> list[str]:
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


def _files(c: Collector, roots: list[str], submission: str | None) -> tuple[dict, dict, list]:
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


def _work_record(c: Collector, commands: list[CommandRun], roots: list[str]) -> WorkRecord:
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
    c = Collector()
    aider_applied = _walk(c, messages, dialect)
    if dialect == "aider":
        aider_applied |= aider.apply_events(c, meta.get("events"), len(messages))
    if dialect == "aider" and not aider_applied:
        aider.apply_edit_blocks(c, (message_text(m) for m in messages if isinstance(m, AIMessage)))
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
                        _normalize(p, roots) for p in [*run.named, *read_after(c, position)]
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
