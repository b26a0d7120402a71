"""The check on a handoff: what the raw messages hold, taken independently of the facts the
writer was given, and how much of it the artifact as handed on holds or names.

The inventory reads tool calls, tool results and user turns directly, with its own simple
rules (any tool whose name says it writes, any argument that names a path; every user turn the
importer did not mark as someone else's; every commit a tool printed), so a miss of the facts
extraction shows up here as a missing item, by name. It shares only the importers' marks and
the markers of text a tool writes as a user turn, which are facts about the records, not
extraction.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from pydantic import BaseModel, ConfigDict, Field

from agent_core.handoff._artifact import CoverageCheck, HandoffArtifact
from agent_core.handoff._facts_only import Locate
from agent_core.handoff._omitted import is_omitted, named_before, named_commits, named_places
from agent_core.handoff._user_text import request_body, request_place

__all__ = ["Inventory", "take_inventory", "check"]

_WRITES = ("write", "edit", "create", "replace", "insert", "patch", "notebook")
_NOT_USER = ("baton_kind", "not_user", "baton_not_sent", "aider_reflection", "carried_over_from")
_TOOL_WRITTEN = ("# Fix any errors below, if possible.",)
_COMMIT_RE = re.compile(
    r"^(?:\[[\w./-]+(?: \(root-commit\))? |>?\s*Commit )([0-9a-f]{7,40})\b", re.MULTILINE
)
_APPLIED_RE = re.compile(r"^>?\s*Applied edit to (.+?)\s*$", re.MULTILINE)
_DIFF_RE = re.compile(r"^diff --git a/.+? b/(.+?)\s*$", re.MULTILINE)
_RM_RE = re.compile(r"(?:^|&&|;|\n)\s*rm\s+((?:-\S+\s+)*)([^;&|\n]+)")
_HEAD = 60
_NAME_CHARS = 48
_COUNTED_DIR = re.compile(r"^\(omitted: \d+ files in (.+?)/(?:, sessions [\d,-]+)?\)$")
_NAMED = 3


class Inventory(BaseModel):
    """What the messages hold, by kind: paths written, user requests (text and the index of
    the message), open todos, commit hashes."""

    model_config = ConfigDict(extra="forbid")
    files: list[str] = Field(default_factory=list)
    requests: list[tuple[str, int]] = Field(default_factory=list)
    todos: list[str] = Field(default_factory=list)
    commits: list[str] = Field(default_factory=list)


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b if isinstance(b, str) else str(b.get("text") or b.get("content") or "")
            for b in content
            if isinstance(b, str | dict)
        )
    return ""


def _calls(message: AIMessage) -> list[tuple[str, str, dict[str, Any]]]:
    calls = [(c.get("id") or "", c["name"], dict(c.get("args") or {})) for c in message.tool_calls]
    if not calls and isinstance(message.content, list):
        calls = [
            (b.get("id") or "", b.get("name", ""), dict(b.get("input") or {}))
            for b in message.content
            if isinstance(b, dict) and b.get("type") == "tool_use"
        ]
    return calls


def _failed_ids(message: BaseMessage) -> set[str]:
    if isinstance(message, ToolMessage):
        return {message.tool_call_id} if message.status == "error" else set()
    if isinstance(message.content, list):
        return {
            b.get("tool_use_id", "")
            for b in message.content
            if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("is_error")
        }
    return set()


def _written_paths(name: str, args: Mapping[str, Any]) -> list[str]:
    lowered = name.lower()
    if name == "str_replace_editor":
        if args.get("command") == "view":
            return []
    elif not any(word in lowered for word in _WRITES):
        return []
    return [
        v
        for k, v in args.items()
        if isinstance(v, str) and ("path" in k.lower() or "file" in k.lower()) and v.strip()
    ]


def take_inventory(
    messages: Sequence[BaseMessage], metadata: Mapping[str, Any] | None = None
) -> Inventory:
    """Read ``messages`` with the inventory's own rules (see the module docstring)."""
    meta = metadata or {}
    one_task = meta.get("format") == "swe_agent" or any(
        "(Open file:" in _text(m.content) for m in messages[:6]
    )
    written: dict[str, str] = {}  # call id -> path
    files: list[str] = []
    removed: set[str] = set()
    requests: list[tuple[str, int]] = []
    todos: list[str] = []
    commits: list[str] = []
    for index, message in enumerate(messages):
        text = _text(message.content)
        if isinstance(message, AIMessage):
            for call_id, name, args in _calls(message):
                for path in _written_paths(name, args):
                    written[call_id] = path
                if "todo" in name.lower() and isinstance(args.get("todos"), list):
                    todos = [
                        str(t.get("content"))
                        for t in args["todos"]
                        if isinstance(t, dict)
                        and t.get("status") != "completed"
                        and t.get("content")
                    ]
                command = args.get("command")
                if isinstance(command, str):
                    removed.update(w for _, rest in _RM_RE.findall(command) for w in rest.split())
        failed = _failed_ids(message)
        for call_id in list(written):
            answered = (
                isinstance(message, ToolMessage)
                and message.tool_call_id == call_id
                or (
                    isinstance(message.content, list)
                    and any(
                        isinstance(b, dict) and b.get("tool_use_id") == call_id
                        for b in message.content
                    )
                )
            )
            if answered:
                path = written.pop(call_id)
                if call_id not in failed:
                    files.append(path)
        files += _APPLIED_RE.findall(text)
        commits += _COMMIT_RE.findall(text)
        if isinstance(message, HumanMessage) and not any(
            map(message.additional_kwargs.get, _NOT_USER)
        ):
            words = text.strip()
            if (
                words
                and not words.startswith(("<",) + _TOOL_WRITTEN)
                and not (one_task and requests)
            ):
                requests.append((words, index))
    for event in meta.get("events") or []:
        # The importer's events carry the number of messages before them: only those inside.
        if (
            isinstance(event, Mapping)
            and event.get("kind") == "commit"
            and event.get("hash")
            and event.get("message_index", 0) <= len(messages)
        ):
            commits.append(str(event["hash"]))
    submission = meta.get("submission") or (meta.get("info") or {}).get("submission")
    if isinstance(submission, str):
        files += _DIFF_RE.findall(submission)
    kept = [
        p for p in dict.fromkeys(files) if p not in removed and posixpath.basename(p) not in removed
    ]
    return Inventory(
        files=kept,
        requests=requests,
        todos=list(dict.fromkeys(todos)),
        commits=list(dict.fromkeys(commits)),
    )


def _same_path(raw: str, shown: str) -> bool:
    raw = posixpath.normpath(raw.replace("\\", "/"))
    return raw == shown or raw.endswith("/" + shown)


def _in_directory(raw: str, directory: str) -> bool:
    raw = posixpath.normpath(raw.replace("\\", "/"))
    parent = posixpath.dirname(raw)
    return parent == directory or parent.endswith("/" + directory)


def _flat(text: str) -> str:
    return " ".join(text.split())


def _result(kind: str, total: list[str], held: list[bool], named: list[bool]) -> CoverageCheck:
    missing = [item for item, h, n in zip(total, held, named, strict=True) if not (h or n)]
    shown = [" ".join(m.split())[:_NAME_CHARS] for m in missing[:_NAMED]]
    if len(missing) > _NAMED:
        shown.append(f"+{len(missing) - _NAMED} more")
    return CoverageCheck.model_validate(
        {
            "kind": kind,
            "total": len(total),
            "covered": len(total) - len(missing),
            "referenced": sum(n and not h for h, n in zip(held, named, strict=True)),
            "missing": shown,
        }
    )


def check(
    artifact: HandoffArtifact,
    inventory: Inventory,
    *,
    previous: HandoffArtifact | None = None,
    pinned: Sequence[str] = (),
    locate: Locate | None = None,
) -> list[CoverageCheck]:
    """How much of the inventory (plus what the previous handoff carried) ``artifact`` holds
    verbatim or names where to read it, by kind, with the missing items by name."""
    markdown = _flat(artifact.to_markdown())
    shown_paths = [f.path for f in artifact.files_modified if not is_omitted(f.path)]
    counted = [m.group(1) for f in artifact.files_modified if (m := _COUNTED_DIR.match(f.path))]
    earlier = previous.files_modified if previous else []
    files = list(
        dict.fromkeys(
            [*(f.path for f in earlier if f.verified and not is_omitted(f.path)), *inventory.files]
        )
    )
    file_held = [any(_same_path(p, s) for s in shown_paths) for p in files]
    file_named = [any(_in_directory(p, d) for d in counted) for p in files]
    bodies = [_flat(request_body(item)) for item in [artifact.goal, *artifact.user_messages]]
    places = named_places(artifact.user_messages)
    up_to = named_before(artifact.user_messages)

    def held_request(text: str) -> bool:
        head = _flat(text)[:_HEAD].rstrip("…")
        return any(
            head in body or (body.endswith("…") and head.startswith(body[:-1]))
            for body in bodies
            if body
        )

    earlier_requests = [
        item
        for item in (previous.user_messages if previous else [])
        if not item.startswith("(omitted:")
    ]
    requests = [request_body(item) for item in earlier_requests] + [
        text for text, _ in inventory.requests
    ]
    request_places = [request_place(item) for item in earlier_requests] + [
        locate(index) if locate else None for _, index in inventory.requests
    ]
    shas = inventory.commits
    commit_named = named_commits(artifact.completed_work, shas)
    todo_text = _flat(
        " ".join(
            [
                *(t.content for t in artifact.open_todos),
                *artifact.in_progress,
                *artifact.remaining_tasks,
            ]
        )
    )
    pins = list(dict.fromkeys(pinned))
    return [
        _result("files", files, file_held, file_named),
        _result(
            "todos",
            inventory.todos,
            [_flat(t) in todo_text for t in inventory.todos],
            [False] * len(inventory.todos),
        ),
        _result(
            "requests",
            requests,
            [held_request(r) for r in requests],
            [
                p is not None and (p in places or (up_to is not None and p <= up_to))
                for p in request_places
            ],
        ),
        _result(
            "commits",
            shas,
            [sha[:7] in markdown for sha in shas],
            [sha in commit_named for sha in shas],
        ),
        _result("pinned", pins, [p in artifact.pinned_files for p in pins], [False] * len(pins)),
    ]
