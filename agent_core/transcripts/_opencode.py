"""opencode sessions as ``opencode export`` writes them: ``{"info": session, "messages":
[{"info": message, "parts": [...]}]}``.

A message's ``info`` has its ``role`` (``user`` / ``assistant``), the assistant's
``modelID`` and ``tokens`` (``input``, ``output``, ``cache.read`` / ``cache.write``). Parts are
``text``, ``reasoning``, ``tool`` (``callID``, ``tool``, ``state`` with ``input``, ``output`` or
``error``), ``file``, and bookkeeping (``step-start``, ``step-finish``, ``snapshot``,
``patch``, ``agent``, ``retry``) that carries no text. A ``tool`` part is a tool call on the
assistant message and a ToolMessage after it. opencode compacts by writing an assistant
message with ``summary: true``: it is kept in ``metadata["compactions"]`` (kind
``compacted``) and its text as a ``not_user`` HumanMessage, as Codex's summaries are.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from agent_core.errors import TranscriptFormatError
from agent_core.transcripts._lines import SkippedLines
from agent_core.transcripts._openai_chat import parse_json_document
from agent_core.transcripts._transcript import Transcript, UsagePoint, compacted

__all__ = ["load_opencode", "looks_like_opencode"]


def looks_like_opencode(text: str) -> bool:
    """True for an object whose ``messages`` hold ``{"info", "parts"}`` pairs."""
    head = text[:5000]
    return head.lstrip().startswith("{") and '"parts"' in text[:200000] and '"info"' in head


def load_opencode(path: Path, text: str) -> Transcript:
    """Parse an ``opencode export`` session JSON file."""
    document = parse_json_document(path, text)
    if not isinstance(document, dict) or not isinstance(document.get("messages"), list):
        raise TranscriptFormatError(
            "expected an opencode export: an object with 'info' and a 'messages' list",
            path=str(path),
        )
    found = document.get("info")
    info: dict[str, Any] = found if isinstance(found, dict) else {}
    builder = _Builder()
    for item in document["messages"]:
        if (
            isinstance(item, dict)
            and isinstance(item.get("info"), dict)
            and isinstance(item.get("parts"), list)
        ):
            builder.add(item["info"], item["parts"])
        else:
            builder.skipped.skip("not opencode messages")
    metadata: dict[str, Any] = {"compactions": builder.compactions}
    for key in ("id", "title", "directory", "version"):
        if info.get(key):
            metadata["session_id" if key == "id" else key] = info[key]
    if info.get("directory"):
        metadata["cwd"] = info["directory"]
    return Transcript(
        format="opencode",
        messages=builder.messages,
        metadata=metadata,
        usage=builder.usage,
        skipped=dict(builder.skipped),
    )


def _stamp(info: dict[str, Any]) -> dict[str, Any]:
    created = (info.get("time") or {}).get("created")
    if not isinstance(created, int | float):
        return {}
    return {"timestamp": datetime.fromtimestamp(created / 1000, UTC).isoformat()}


class _Builder:
    def __init__(self) -> None:
        self.messages: list[BaseMessage] = []
        self.usage: list[UsagePoint] = []
        self.compactions: list[dict[str, Any]] = []
        self.skipped = SkippedLines()
        self._prompt_start = 0

    def add(self, info: dict[str, Any], parts: list[Any]) -> None:
        stamp = _stamp(info)
        role = info.get("role")
        texts = [
            str(p.get("text") or "")
            for p in parts
            if isinstance(p, dict) and p.get("type") == "text" and not p.get("ignored")
        ]
        if role == "user":
            files = [
                f"[file: {p.get('filename') or p.get('url') or ''}]"
                for p in parts
                if isinstance(p, dict) and p.get("type") == "file"
            ]
            text = "\n".join(t for t in [*texts, *files] if t)
            if text:
                self.messages.append(HumanMessage(content=text, additional_kwargs=stamp))
        elif role == "assistant" and info.get("summary") is True:
            self._compaction("\n".join(texts), stamp)
        elif role == "assistant":
            self._assistant(info, parts, texts, stamp)
        else:
            self.skipped.skip("not opencode messages")

    def _assistant(
        self, info: dict[str, Any], parts: list[Any], texts: list[str], stamp: dict[str, Any]
    ) -> None:
        tools = [p for p in parts if isinstance(p, dict) and p.get("type") == "tool"]
        thinking = [
            str(p.get("text") or "")
            for p in parts
            if isinstance(p, dict) and p.get("type") == "reasoning" and p.get("text")
        ]
        calls = [
            {
                "name": str(p.get("tool") or "tool"),
                "args": dict((p.get("state") or {}).get("input") or {}),
                "id": str(p.get("callID") or p.get("id") or ""),
            }
            for p in tools
        ]
        kwargs = {**stamp, "thinking": "\n\n".join(thinking)} if thinking else dict(stamp)
        self.messages.append(
            AIMessage(
                content="\n".join(t for t in texts if t),
                tool_calls=calls,
                additional_kwargs=kwargs,
                response_metadata={"model": info.get("modelID")},
            )
        )
        tokens = info.get("tokens")
        if isinstance(tokens, dict) and tokens.get("input") is not None:
            cache = tokens.get("cache") or {}
            self.usage.append(
                UsagePoint(
                    message_index=len(self.messages) - 1,
                    input_tokens=int(tokens.get("input") or 0)
                    + int(cache.get("read") or 0)
                    + int(cache.get("write") or 0),
                    output_tokens=tokens.get("output"),
                    prompt_start=self._prompt_start,
                )
            )
        for part, call in zip(tools, calls, strict=True):
            state = part.get("state") or {}
            failed = state.get("status") == "error"
            output = state.get("error") if failed else state.get("output")
            self.messages.append(
                ToolMessage(
                    content="" if output is None else str(output),
                    tool_call_id=call["id"],
                    status="error" if failed else "success",
                    additional_kwargs=dict(stamp),
                )
            )

    def _compaction(self, summary: str, stamp: dict[str, Any]) -> None:
        record, message = compacted(len(self.messages), summary, stamp)
        self.compactions.append(record)
        self._prompt_start = len(self.messages)
        self.messages.append(message)
