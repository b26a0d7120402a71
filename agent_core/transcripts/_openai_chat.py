"""OpenAI chat JSON: a list of messages, or an object with a ``messages`` list."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from agent_core.errors import TranscriptFormatError
from agent_core.transcripts._transcript import Transcript

__all__ = ["load_openai_chat", "message_from_openai", "parse_json_document"]

_KEPT_KWARGS = ("timestamp", "created_at", "message_type", "agent")


def load_openai_chat(path: Path, text: str) -> Transcript:
    """Parse an OpenAI chat document into a Transcript."""
    document = parse_json_document(path, text)
    if isinstance(document, dict) and isinstance(document.get("messages"), list):
        raw = document["messages"]
        metadata = {k: v for k, v in document.items() if k != "messages"}
    elif isinstance(document, list):
        raw, metadata = document, {}
    else:
        raise TranscriptFormatError(
            "expected a JSON list of chat messages or an object with a 'messages' list",
            path=str(path),
        )
    messages = [message_from_openai(item, index, path) for index, item in enumerate(raw)]
    return Transcript(format="openai", messages=messages, metadata=metadata)


def parse_json_document(path: Path, text: str) -> Any:
    """``json.loads`` whose errors name the file and the line where parsing stopped."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TranscriptFormatError(
            f"invalid JSON ({exc.msg} at column {exc.colno}); the file may be truncated",
            line=exc.lineno,
            path=str(path),
        ) from exc


def message_from_openai(item: Any, index: int, path: Path) -> BaseMessage:
    """One OpenAI-format message dict as a langchain message."""
    if not isinstance(item, dict) or "role" not in item:
        raise TranscriptFormatError(
            f"message {index}: expected an object with a 'role', got {type(item).__name__}",
            path=str(path),
        )
    role = item["role"]
    content = _content(item.get("content"))
    kwargs = {k: item[k] for k in _KEPT_KWARGS if k in item}
    name = item.get("name")
    if role in ("system", "developer"):
        return SystemMessage(content=content, name=name, additional_kwargs=kwargs)
    if role == "user":
        return HumanMessage(content=content, name=name, additional_kwargs=kwargs)
    if role == "assistant":
        calls = [_tool_call(call, index, path) for call in item.get("tool_calls") or []]
        return AIMessage(content=content, name=name, tool_calls=calls, additional_kwargs=kwargs)
    if role in ("tool", "function"):
        call_id = item.get("tool_call_id") or next(iter(item.get("tool_call_ids") or []), "")
        return ToolMessage(content=content, tool_call_id=call_id or "", additional_kwargs=kwargs)
    raise TranscriptFormatError(
        f"message {index}: unknown role {role!r}; expected system, user, assistant or tool",
        path=str(path),
    )


def _content(content: Any) -> str | list:
    if content is None:
        return ""
    if isinstance(content, list) and all(
        isinstance(b, dict) and b.get("type") == "text" for b in content
    ):
        return "".join(b.get("text", "") for b in content)
    return content


def _tool_call(call: Any, index: int, path: Path) -> dict[str, Any]:
    try:
        function = call["function"]
        raw_args = function.get("arguments") or "{}"
        args = json.loads(raw_args) if isinstance(raw_args, str) else raw_args
        return {"name": function["name"], "args": args, "id": call.get("id")}
    except (KeyError, TypeError, json.JSONDecodeError) as exc:
        raise TranscriptFormatError(
            f"message {index}: malformed tool call ({exc}); expected "
            "{'id', 'function': {'name', 'arguments': JSON string}}",
            path=str(path),
        ) from exc
