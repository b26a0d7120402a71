"""A reader for pi's session files (``.jsonl``: a ``session`` header, then ``message`` rows with
``user``/``assistant``/``toolResult`` roles, and ``compaction`` rows holding pi's own summary
at each cut), for the continuity bench until the engine imports pi sessions itself."""

from __future__ import annotations

import json
from pathlib import Path

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

__all__ = ["PiSession", "read_pi"]


class PiSession:
    """The messages between pi's cuts: ``parts[k]`` are those before cut ``k`` (after the
    previous cut), ``summaries[k]`` pi's summary of everything before that cut. A compaction
    row keeps the entries from ``firstKeptEntryIndex`` on: that entry is where pi cut."""

    def __init__(self, parts: list[list[BaseMessage]], summaries: list[str], cwd: str) -> None:
        self.parts, self.summaries, self.cwd = parts, summaries, cwd


def _text(blocks: object) -> str:
    if isinstance(blocks, str):
        return blocks
    return "\n".join(
        b.get("text", "") for b in blocks or [] if isinstance(b, dict) and b.get("type") == "text"
    )


def _message(row: dict) -> BaseMessage | None:
    message = row["message"]
    role, content = message.get("role"), message.get("content")
    if role == "user":
        return HumanMessage(_text(content))
    if role == "assistant":
        calls = [
            {"name": b["name"], "id": b["id"], "args": b.get("arguments") or {}}
            for b in content or []
            if isinstance(b, dict) and b.get("type") == "toolCall"
        ]
        return AIMessage(_text(content), tool_calls=calls)
    if role == "toolResult":
        return ToolMessage(
            _text(content),
            tool_call_id=message.get("toolCallId", ""),
            name=message.get("toolName"),
            status="error" if message.get("isError") else "success",
        )
    return None


def read_pi(path: Path) -> PiSession:
    """Read a pi session file; raises ``ValueError`` naming the line of a malformed row."""
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            rows.append(json.loads(line) if line.strip() else {})
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path.name}:{number}: invalid JSON ({exc.msg})") from exc
    compactions = [r for r in rows if r.get("type") == "compaction"]
    cuts = [int(r.get("firstKeptEntryIndex", i)) for i, r in enumerate(rows) if r in compactions]
    parts: list[list[BaseMessage]] = []
    start = 0
    for end in [*cuts, len(rows)]:
        part = [rows[i] for i in range(start, end) if rows[i].get("type") == "message"]
        parts.append([m for m in map(_message, part) if m is not None])
        start = end
    cwd = next((str(r.get("cwd", "")) for r in rows if r.get("type") == "session"), "")
    return PiSession(parts, [str(r.get("summary", "")) for r in compactions], cwd)
