"""What the offline simulator does next, decided from the conversation alone.

The simulator acts like a coding agent working through a todo list: it plans todos, and
for each todo writes a file, runs a command, edits the file, runs the tests and marks the
todo done. Every step is a pure function of the visible messages, so it is deterministic
and it carries on correctly after a context reset: it reads the handoff's todo state and
resumes the in-progress todo from what the handoff proves was done (its file written or
edited), doing the rest for real.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

__all__ = ["Step", "next_step", "todo_state", "task_words", "is_context_message", "command_output"]

_STEPS_PER_TODO = ("write", "run", "edit", "test")
_TODO_STATE = re.compile(r"<todo-state>(?P<json>.*?)</todo-state>", re.DOTALL)


@dataclass(frozen=True)
class Step:
    """One simulator turn: either tool calls or a final text answer."""

    text: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)


def _digest(*parts: str) -> int:
    return int(hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:12], 16)


def task_words(text: str) -> list[str]:
    words = re.findall(r"[A-Za-z][A-Za-z0-9]{2,}", text.lower())
    stop = {"the", "and", "for", "with", "please", "that", "this", "then", "add", "make", "build"}
    return [w for w in words if w not in stop][:6] or ["project"]


def _slug(text: str) -> str:
    return "_".join(task_words(text)[:2])


def is_context_message(message: BaseMessage) -> bool:
    """Handoff and pinned-file messages start a session; they are not user requests."""
    return bool(message.additional_kwargs.get("baton_kind"))


def _last_user_index(messages: list[BaseMessage]) -> int:
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, HumanMessage) and not is_context_message(message):
            return index
    return -1


def _last_outcomes(messages: list[BaseMessage]) -> dict[str, bool]:
    """Each command run since the user's last message, in the order first run: whether its
    last run exited 0."""
    commands: dict[str, str] = {}
    outcomes: dict[str, bool] = {}
    for message in messages[_last_user_index(messages) + 1 :]:
        if isinstance(message, AIMessage):
            commands.update(
                {
                    call["id"]: str(call["args"].get("command", ""))
                    for call in message.tool_calls
                    if call["name"] == "run_command" and call["id"] is not None
                }
            )
        elif isinstance(message, ToolMessage) and message.tool_call_id in commands:
            tail = str(message.content)[-40:]
            outcomes[commands[message.tool_call_id]] = "[exit status 0]" in tail
    return outcomes


def _verdict(outcomes: dict[str, bool]) -> str:
    """What the last words say about the checks: never that they pass when one the turn ran
    failed on its last run."""
    failing = [command for command, passed in outcomes.items() if not passed]
    if failing:
        named = ", ".join(f"`{command}`" for command in failing)
        return (
            f"Not ready for review: {named} failed on its last run and was not run again."
            if len(failing) == 1
            else f"Not ready for review: {named} failed on their last runs and were not run again."
        )
    if outcomes:
        return "The tests pass and the work is ready for review."
    return "No check ran in this turn; run the tests before relying on it."


def _carried_state(messages: list[BaseMessage]) -> dict[str, Any]:
    for message in reversed(messages):
        text = message.content if isinstance(message.content, str) else ""
        match = _TODO_STATE.search(text)
        if match:
            try:
                state = json.loads(match["json"])
            except ValueError:
                return {}
            return state if isinstance(state, dict) else {}
    return {}


def todo_state(messages: list[BaseMessage]) -> list[dict[str, Any]]:
    """The latest todo list: from the last write_todos call, else from a handoff message."""
    for message in reversed(messages):
        if isinstance(message, AIMessage):
            for call in reversed(message.tool_calls):
                if call["name"] == "write_todos":
                    return [dict(t) for t in call["args"].get("todos", [])]
    todos = _carried_state(messages).get("todos", [])
    return [dict(t) for t in todos if isinstance(t, dict)]


def _resumed_steps(handoff: str, path: str) -> int:
    """Steps of the active todo the handoff's In Progress proves were taken: its file written
    (1), its check run and failing (2), the file edited after it (3). Nothing proven, nothing
    skipped: the work is done again for real."""
    changed = re.search(r"^- Changed since the last completed item: (.*)$", handoff, re.MULTILINE)
    if changed is None or not re.search(
        rf"(?:^|, ){re.escape(path)}(?: \(edited\))?(?:,|$)", changed.group(1)
    ):
        return 0
    if f"{path} (edited)" in changed.group(1):
        return 3
    return 2 if re.search(r"^- Failing: `python -m \S+ --check`", handoff, re.MULTILINE) else 1


def _steps_done(messages: list[BaseMessage], path: str) -> int:
    """Steps of the active todo already taken, counted back to its start or, after a reset,
    to the handoff (plus what the handoff proves was done before it)."""
    calls = 0
    for message in reversed(messages):
        if isinstance(message, HumanMessage) and is_context_message(message):
            if message.additional_kwargs.get("baton_kind") == "handoff":
                return calls + _resumed_steps(str(message.content), path)
            continue
        if isinstance(message, AIMessage):
            for call in reversed(message.tool_calls):
                if call["name"] == "write_todos":
                    return calls
                calls += 1
    return calls


def _plan(task: str) -> list[dict[str, Any]]:
    topic = " ".join(task_words(task)[:3])
    items = [
        f"Sketch the design for {topic}",
        f"Implement the {topic} module",
        f"Write tests for {topic}",
        f"Wire {topic} into the CLI and document it",
    ]
    return [
        {"id": f"t{n + 1}", "content": item, "status": "in_progress" if n == 0 else "pending"}
        for n, item in enumerate(items)
    ]


def _file_for(todo: dict[str, Any], task: str) -> str:
    slug = _slug(task)
    content = todo["content"].lower()
    if "test" in content:
        return f"tests/test_{slug}.py"
    if "design" in content:
        return f"docs/{slug}_design.md"
    if "cli" in content or "document" in content:
        return f"{slug}/cli.py"
    return f"{slug}/core.py"


def _code(path: str, todo: str, seed: int, lines: int) -> str:
    body = [f'"""{todo}."""', "", "from __future__ import annotations", ""]
    for n in range(lines):
        value = (seed >> (n % 40)) % 997
        body.append(f"def step_{n}(value: int = {value}) -> int:")
        body.append(f"    # part {n} of {path}: keeps the invariant value < {value + 1000}")
        body.append(f"    return value * {n + 1} % {value + 7}")
        body.append("")
    return "\n".join(body)


def _command_output(command: str, seed: int, lines: int, failing: bool) -> str:
    out = [f"$ {command}", "collecting ..."]
    for n in range(lines):
        out.append(
            f"tests/test_case_{n:03d}.py::test_behaviour_{(seed + n) % 97} PASSED [{n * 100 // max(lines, 1):3d}%]"
        )
    if failing:
        out.append(
            "FAILED tests/test_case_000.py::test_edge_case - AssertionError: expected 3, got 2"
        )
        out.append(f"==== 1 failed, {lines - 1} passed in 0.{seed % 90 + 10}s ====")
        out.append("[exit status 1]")
    else:
        out.append(f"==== {lines} passed in 0.{seed % 90 + 10}s ====")
        out.append("[exit status 0]")
    return "\n".join(out)


def _tool_call(name: str, args: dict[str, Any], key: str) -> dict[str, Any]:
    return {
        "name": name,
        "args": args,
        "id": f"call_{_digest(name, key) % 10**10:010d}",
        "type": "tool_call",
    }


def _advance(todos: list[dict[str, Any]]) -> list[dict[str, Any]]:
    updated = [dict(t) for t in todos]
    for todo in updated:
        if todo["status"] == "in_progress":
            todo["status"] = "completed"
            break
    for todo in updated:
        if todo["status"] == "pending":
            todo["status"] = "in_progress"
            break
    return updated


def _task(messages: list[BaseMessage]) -> str:
    index = _last_user_index(messages)
    if index >= 0:
        return str(messages[index].content)
    return str(_carried_state(messages).get("task") or "the project")


def next_step(messages: list[BaseMessage], *, verbosity: int = 24) -> Step:
    """Decide the simulator's next turn from ``messages`` (deterministic)."""
    task = _task(messages)
    todos = todo_state(messages)
    last_user = _last_user_index(messages)
    new_request = last_user >= 0 and not any(
        isinstance(m, (AIMessage, ToolMessage)) for m in messages[last_user + 1 :]
    )
    if not todos or (new_request and all(t["status"] == "completed" for t in todos)):
        plan = (
            _plan(task)
            if not todos
            else [
                *todos,
                {
                    "id": f"t{len(todos) + 1}",
                    "content": f"Follow up: {task[:80]}",
                    "status": "in_progress",
                },
            ]
        )
        return Step(
            text=f"Planning the work: {len(plan)} todos.",
            tool_calls=[
                _tool_call("write_todos", {"todos": plan}, task + "plan" + str(len(messages)))
            ],
        )
    active = next((t for t in todos if t["status"] == "in_progress"), None)
    if active is None:
        pending = next((t for t in todos if t["status"] == "pending"), None)
        if pending is None:
            done = ", ".join(t["content"] for t in todos[-4:])
            return Step(
                text=f"All {len(todos)} todos are complete. Finished: {done}. "
                + _verdict(_last_outcomes(messages))
            )
        started = [dict(t, status="in_progress") if t is pending else t for t in todos]
        return Step(
            tool_calls=[_tool_call("write_todos", {"todos": started}, task + pending["content"])]
        )
    path = _file_for(active, task)
    done_steps = _steps_done(messages, path)
    seed = _digest(task, active["content"])
    key = f"{active['content']}:{done_steps}:{len(messages)}"
    if done_steps >= len(_STEPS_PER_TODO):
        return Step(
            text=f"Finished: {active['content']}.",
            tool_calls=[_tool_call("write_todos", {"todos": _advance(todos)}, key)],
        )
    kind = _STEPS_PER_TODO[done_steps]
    if kind == "write":
        args = {"path": path, "content": _code(path, active["content"], seed, verbosity // 3)}
        return Step(text=f"Writing {path}.", tool_calls=[_tool_call("write_file", args, key)])
    if kind == "edit":
        args = {"path": path, "old_string": "return value", "new_string": "return abs(value)"}
        return Step(
            text=f"Fixing the edge case in {path}.", tool_calls=[_tool_call("edit_file", args, key)]
        )
    command = f"pytest -q {path}" if kind == "test" else f"python -m {_slug(task)} --check"
    return Step(tool_calls=[_tool_call("run_command", {"command": command}, key)])


def command_output(command: str, *, verbosity: int = 24) -> str:
    """Verbose, deterministic output of a pseudo shell command."""
    seed = _digest(command)
    return _command_output(command, seed, verbosity, failing="--check" in command)


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)
