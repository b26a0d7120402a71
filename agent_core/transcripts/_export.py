"""An imported transcript back out as OpenAI chat JSON, and a summary of what was imported.

OpenAI chat JSON is the one shape every importer's messages fit (roles, tool calls with ids,
tool results), so ``load_transcript(..., format="openai")`` reads the export back.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from agent_core.transcripts._sessions import agent_compactions
from agent_core.transcripts._transcript import Transcript

__all__ = ["message_to_openai", "transcript_summary", "transcript_to_openai"]


def message_to_openai(message: BaseMessage) -> dict[str, Any]:
    """One langchain message as an OpenAI chat message dict."""
    if isinstance(message, ToolMessage):
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    if isinstance(message, AIMessage):
        out: dict[str, Any] = {"role": "assistant", "content": message.content}
        if message.tool_calls:
            out["tool_calls"] = [
                {
                    "id": call.get("id") or "",
                    "type": "function",
                    "function": {
                        "name": call["name"],
                        "arguments": json.dumps(call.get("args") or {}, ensure_ascii=False),
                    },
                }
                for call in message.tool_calls
            ]
        return out
    role = "system" if isinstance(message, SystemMessage) else "user"
    if not isinstance(message, SystemMessage | HumanMessage):
        raise ValueError(f"cannot export a {type(message).__name__} as OpenAI chat")
    return {"role": role, "content": message.content}


def transcript_to_openai(transcript: Transcript) -> dict[str, Any]:
    """``{"source_format": …, "messages": [...]}``, readable by the ``openai`` importer."""
    return {
        "source_format": transcript.format,
        "messages": [message_to_openai(m) for m in transcript.messages],
    }


def transcript_summary(transcript: Transcript) -> dict[str, Any]:
    """What an import found: messages by role, tool calls, usage points, the agent's own
    compactions, and the lines it skipped (why, in words; ``""`` when none)."""
    roles = Counter(message_to_openai(m)["role"] for m in transcript.messages)
    calls = sum(len(m.tool_calls) for m in transcript.messages if isinstance(m, AIMessage))
    peak = max((u.input_tokens for u in transcript.usage), default=None)
    return {
        "format": transcript.format,
        "messages": len(transcript.messages),
        "roles": dict(sorted(roles.items())),
        "tool_calls": calls,
        "usage_points": len(transcript.usage),
        "peak_input_tokens": peak,
        "compactions": len(agent_compactions(transcript)),
        "skipped": transcript.skipped_note(),
    }
