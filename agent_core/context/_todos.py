"""Todo-scoped compression: tag messages with the active todo, compress finished spans.

Every assistant message is tagged with the todo that was in progress when it was produced
(tool results inherit their call's tag). When a todo completes or is blocked, its rows —
and, for a parent, its children's rows — can be replaced in the model's context by one
summary in the handoff's sections, scoped to the span (model-written when a model is there,
from the evidence otherwise), if that is smaller. Spans may interleave; originals stay stored.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage

from agent_core.context._build import to_langchain
from agent_core.handoff._facts import extract_facts
from agent_core.handoff._facts_only import facts_only_fields
from agent_core.handoff._generation import generate_handoff
from agent_core.storage._records import StoredMessage

__all__ = ["TodoTracker", "todo_key", "span_rows", "todo_summary", "model_todo_summary"]

_TODO_TOOLS = ("write_todos", "TodoWrite")
_CLOSED = ("completed", "blocked")


def todo_key(item: Mapping[str, Any]) -> str:
    """A todo's stable id: its own id, else a hash of its content."""
    if item.get("id"):
        return str(item["id"])
    digest = hashlib.sha1(str(item.get("content", "")).encode()).hexdigest()[:10]
    return f"todo-{digest}"


@dataclass
class TodoTracker:
    """Follows write_todos calls: the active todo, parents, and todos that just closed."""

    todos: dict[str, dict[str, Any]] = field(default_factory=dict)
    active: str | None = None
    closed: list[str] = field(default_factory=list)
    _call_tags: dict[str, str | None] = field(default_factory=dict)

    def tag_for_tool_result(self, tool_call_id: str | None) -> str | None:
        return self._call_tags.get(tool_call_id or "", self.active)

    def observe(self, message: AIMessage) -> str | None:
        """Tag for ``message`` (the todo active before it), then apply its todo updates."""
        return self.observe_calls(message.tool_calls)

    def observe_calls(self, calls: Iterable[Mapping[str, Any]]) -> str | None:
        """:meth:`observe` for stored tool-call dicts (no message objects needed)."""
        tag = self.active
        for call in calls:
            self._call_tags[call["id"]] = tag
            if call["name"] in _TODO_TOOLS:
                self._apply(call["args"].get("todos") or [])
        return tag

    def _apply(self, items: Iterable[Any]) -> None:
        fresh: dict[str, dict[str, Any]] = {}
        for item in items:
            if not isinstance(item, Mapping):
                continue
            key = todo_key(item)
            fresh[key] = {
                "content": str(item.get("content", "")),
                "status": str(item.get("status", "pending")),
                "parent_id": item.get("parent_id"),
                "blocker": item.get("blocker"),
            }
            before = self.todos.get(key, {}).get("status")
            if fresh[key]["status"] in _CLOSED and before not in _CLOSED:
                self.closed.append(key)
        self.todos = fresh
        in_progress = [k for k, t in fresh.items() if t["status"] == "in_progress"]
        # The innermost in-progress todo is the one being worked on.
        leaves = [
            k for k in in_progress if not any(fresh[c]["parent_id"] == k for c in in_progress)
        ]
        self.active = leaves[-1] if leaves else None

    def take_closed(self) -> list[str]:
        closed, self.closed = self.closed, []
        return closed

    def descendants(self, key: str) -> set[str]:
        found: set[str] = set()
        frontier = [key]
        while frontier:
            parent = frontier.pop()
            for child, todo in self.todos.items():
                if todo.get("parent_id") == parent and child not in found:
                    found.add(child)
                    frontier.append(child)
        return found


def span_rows(rows: Sequence[StoredMessage], keys: set[str]) -> list[StoredMessage]:
    """The assistant and tool rows tagged with any of ``keys``.

    User words are never compressed, and neither are todo-list updates: the latest list must
    stay visible or the agent would lose track of which todos are done.
    """
    todo_calls = {
        call["id"] for r in rows for call in r.tool_calls if call.get("name") in _TODO_TOOLS
    }
    return [
        r
        for r in rows
        if r.todo_id in keys
        and r.role in ("assistant", "tool")
        and not any(call.get("name") in _TODO_TOOLS for call in r.tool_calls)
        and r.tool_call_id not in todo_calls
    ]


def _sections(
    content: str,
    status: str,
    blocker: str | None,
    *,
    done: Sequence[str],
    decisions: Sequence[str],
    files: Sequence[str],
    lessons: Sequence[str],
    leaves: str,
) -> str:
    """A finished todo in the handoff's sections, scoped to its span: what it was for, what
    was done, decisions, files, lessons, what it leaves next."""
    head = f'Todo "{content}" is {status}' + (f": blocked by {blocker}." if blocker else ".")
    parts = [head]
    for title, items in (
        ("Done", done),
        ("Decisions", decisions),
        ("Files", files),
        ("Lessons", lessons),
    ):
        if items:
            parts.append(f"{title}: " + "; ".join(i.rstrip(". ") for i in items[:6]) + ".")
    if leaves:
        parts.append(f"Leaves next: {leaves}")
    return " ".join(parts)


def todo_summary(
    content: str, status: str, rows: Sequence[StoredMessage], *, blocker: str | None = None
) -> str:
    """A finished todo's span summed up from its evidence alone, by the writer a facts-only
    handoff uses (files, commands that failed and what fixed them, the agent's stated next
    step), scoped to the span."""
    messages = to_langchain(rows)
    facts = extract_facts(messages)
    fields = facts_only_fields(facts, session_number=1, utilization=0.0, first_session=False)
    done = [c for c in fields["completed_work"] if c.startswith("Commit ")]
    last = fields["current_state_summary"]
    return _sections(
        content,
        status,
        blocker,
        done=[*done, *([last] if last else [])],
        decisions=[],
        files=facts.modified_paths,
        lessons=fields["errors_and_fixes"],
        leaves=fields["next_step"],
    )


async def model_todo_summary(
    model: BaseChatModel,
    content: str,
    status: str,
    rows: Sequence[StoredMessage],
    *,
    blocker: str | None = None,
    budget_tokens: int = 400,
) -> str | None:
    """The same summary written by ``model`` through the handoff writer (asked about this
    todo's span only, checked against its evidence); None when the model gave nothing."""
    result = await generate_handoff(
        model,
        to_langchain(rows),
        focus=f'the todo "{content}" only: what it was for, what was done, what it leaves next',
        budget_tokens=budget_tokens,
        session_number=1,
        trigger="auto",
        utilization=0.0,
        model_name="todo",
        # What the summary shows of a finished todo: its work, not the session's remaining
        # tasks or state, which the model rightly leaves empty there (a re-ask for them
        # would be a second model call for every finished todo).
        required=("completed_work",),
    )
    if result.source == "facts_only":
        return None
    a = result.artifact
    return _sections(
        content,
        status,
        blocker,
        done=a.completed_work,
        decisions=a.key_decisions,
        files=[f.path for f in a.files_modified if f.verified],
        lessons=a.errors_and_fixes,
        leaves=a.next_step,
    )
