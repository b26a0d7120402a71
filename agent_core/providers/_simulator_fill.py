"""Schema-valid structured output for the simulator, derived from the conversation."""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from agent_core.handoff._facts import extract_facts
from agent_core.handoff._facts_only import errors_and_fixes
from agent_core.handoff._state_line import state_line
from agent_core.handoff._user_text import constraint_sentences
from agent_core.providers._simulator_script import todo_state

__all__ = ["fill_schema"]


_MODIFIED = re.compile(r"^modified: (\S+)", re.MULTILINE)
_TODO = re.compile(r"^todo \[(\w+)\]: (.+)$", re.MULTILINE)
_COMMAND = re.compile(r"^command: (.+) -> exit", re.MULTILINE)


def _from_prompt_text(
    messages: list[BaseMessage],
) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """Evidence a handoff prompt spells out as text (``modified: …``, ``todo [status]: …``)."""
    text = "\n".join(m.content for m in messages if isinstance(m.content, str))
    todos = [{"content": c.strip(), "status": s} for s, c in _TODO.findall(text)]
    return todos, list(dict.fromkeys(_MODIFIED.findall(text))), _COMMAND.findall(text)


_TRANSCRIPT = re.compile(r"<transcript>\n(.*?)\n</transcript>", re.DOTALL)


def _user_texts(messages: list[BaseMessage]) -> list[str]:
    """What the user wrote: their messages, or their entries of a handoff prompt's transcript
    (never the assistant's, a tool's, or a handoff or pinned file shown as context)."""
    texts: list[str] = []
    for message in messages:
        if not isinstance(message, HumanMessage) or message.additional_kwargs.get("baton_kind"):
            continue
        content = str(message.content)
        transcript = _TRANSCRIPT.search(content)
        if transcript is None:
            texts.append(content)
            continue
        texts += [
            entry[len("USER: ") :]
            for entry in transcript.group(1).split("\n\n")
            if entry.startswith("USER: ") and not entry.startswith("USER: <")
        ]
    return texts


def _user_directives(messages: list[BaseMessage]) -> list[str]:
    """The user's own sentences that state a rule or a choice, verbatim, in order."""
    return constraint_sentences(_user_texts(messages), limit=10)


def _evidence(messages: list[BaseMessage]) -> dict[str, list[str]]:
    todos = todo_state(messages)
    files: list[str] = []
    commands: list[str] = []
    if not todos:
        todos, files, commands = _from_prompt_text(messages)
    for message in messages:
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                path = call["args"].get("path")
                if call["name"] in ("write_file", "edit_file") and path and path not in files:
                    files.append(path)
                if call["name"] == "run_command":
                    commands.append(call["args"].get("command", ""))
    facts = extract_facts(messages)
    files = list(dict.fromkeys([*files, *facts.modified_paths]))
    done = [t["content"] for t in todos if t.get("status") == "completed"]
    active = [t["content"] for t in todos if t.get("status") == "in_progress"]
    pending = [t["content"] for t in todos if t.get("status") == "pending"]
    # Counted from the lists this answer holds, as the handoff's own state line is.
    state = state_line(
        {
            "completed_work": [f"Completed todo: {c}" for c in done],
            "open_todos": [t for t in todos if t.get("status") != "completed"],
            "files_modified": files,
            "errors_and_fixes": errors_and_fixes(facts.commands),
        }
    )
    if active:
        state += f" Working on {active[0]}."
    return {
        "completed_work": done,
        "in_progress": active,
        "remaining_tasks": pending,
        "constraints": _user_directives(messages),
        "nothing": [],
        "files_modified": files,
        "current_state_summary": [state],
        "commands": commands,
    }


# First match wins. The simulator takes no decisions and reads no errors, so those sections
# stay empty; the user's own rule-like sentences are its constraints.
_FIELD_SOURCES = {
    "completed": "completed_work",
    "in_progress": "in_progress",
    "next_step": "in_progress",
    "remaining": "remaining_tasks",
    "next": "remaining_tasks",
    "constraint": "constraints",
    "decision": "nothing",
    "error": "nothing",
    "file": "files_modified",
    "summary": "current_state_summary",
    "state": "current_state_summary",
}


def _source(name: str, evidence: dict[str, list[str]]) -> list[str] | None:
    lowered = name.lower()
    for key, source in _FIELD_SOURCES.items():
        if key in lowered:
            return evidence[source]
    return None


def _value(
    name: str, schema: dict[str, Any], defs: dict[str, Any], evidence: dict[str, list[str]]
) -> Any:
    if "$ref" in schema:
        schema = defs.get(schema["$ref"].rsplit("/", 1)[-1], {})
    if "anyOf" in schema:
        options = [s for s in schema["anyOf"] if s.get("type") != "null"]
        schema = options[0] if options else {"type": "null"}
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    source = _source(name, evidence)
    if kind == "array":
        items = schema.get("items", {})
        if source is not None and items.get("type", "string") == "string":
            return list(source)
        if source is not None and (items.get("$ref") or items.get("type") == "object"):
            return [_object(items, defs, evidence, seed=s) for s in source]
        return []
    if kind == "string":
        return " ".join(source) if source else ""  # nothing to say: nothing invented
    if kind == "integer":
        return 0
    if kind == "number":
        return 0.0
    if kind == "boolean":
        return False
    if kind == "object":
        return _object(schema, defs, evidence)
    return None


def _object(
    schema: dict[str, Any],
    defs: dict[str, Any],
    evidence: dict[str, list[str]],
    seed: str | None = None,
) -> dict[str, Any]:
    if "$ref" in schema:
        schema = defs.get(schema["$ref"].rsplit("/", 1)[-1], {})
    properties = schema.get("properties", {})
    out: dict[str, Any] = {}
    for name, prop in properties.items():
        if seed is not None and prop.get("type") == "string" and not out:
            out[name] = seed
            continue
        if name not in schema.get("required", []) and prop.get("default") is not None:
            continue
        out[name] = _value(name, prop, defs, evidence)
    return out


def fill_schema(schema: dict[str, Any], messages: list[BaseMessage]) -> dict[str, Any]:
    """Arguments valid for ``schema`` (a JSON schema object), filled from what happened."""
    defs = {**schema.get("$defs", {}), **schema.get("definitions", {})}
    return _object(schema, defs, _evidence(messages))
