"""Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-….jsonl``), one record a line.

Each record is ``{"timestamp", "type", "payload"}`` with ``type`` one of ``session_meta``,
``turn_context``, ``response_item``, ``event_msg`` or ``compacted``. The conversation is in the
``response_item`` records (Responses API items): ``message`` (roles ``user``, ``assistant``,
``developer``/``system``), ``function_call`` / ``custom_tool_call`` / ``local_shell_call`` and
their ``…_output``, ``reasoning``. An assistant message and the calls that follow it make one
AIMessage; reasoning summaries ride on the next AIMessage as ``thinking``.

Usage comes from ``event_msg`` ``token_count`` records: ``info.last_token_usage`` is the last
model call, charged to the AIMessage that call produced (``input_tokens`` already includes the
cached part). A ``compacted`` record is Codex's own compaction: its ``message`` is the summary
Codex wrote, kept as a ``not_user`` HumanMessage (as Claude Code's compact summaries are) and in
``metadata["compactions"]`` with the input tokens of the last call before it and the first
after it. Later calls were sent the compacted history, so their ``prompt_start`` is the summary.

User-role messages Codex writes itself (``<environment_context>``, ``<user_instructions>``,
``AGENTS.md`` instructions, turn-abort notes) are marked ``not_user`` with the reason.

A message the user typed while Codex worked (a "steer": Codex takes it into the running
turn at its next model call and records it as an ordinary user message) has
``additional_kwargs["queued"]``: a user message after the turn's own prompt and some of the
turn's work, before the turn ended. Turns are told by the ``event_msg`` records
``task_started`` and ``task_complete`` / ``turn_aborted``; a rollout without them (older
Codex) marks nothing, since a ``turn_context`` alone does not say where a turn ended. A
message queued for after the turn is sent as the next turn's prompt: an ordinary message.

Rollouts from before the envelope (bare response items after a ``{"id", "timestamp"}`` line,
``{"record_type": "state"}`` markers) load too.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from agent_core.storage._records import QUEUED
from agent_core.transcripts._lines import SkippedLines, json_lines
from agent_core.transcripts._transcript import Transcript, UsagePoint

__all__ = ["load_codex", "looks_like_codex"]

_ENVELOPE_TYPES = {"session_meta", "turn_context", "response_item", "event_msg", "compacted"}
_ITEM_TYPES = {
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "web_search_call",
    "ghost_snapshot",
    "compaction",
    "compaction_summary",
}
_CALL_TYPES = {"function_call", "custom_tool_call", "local_shell_call"}
_OUTPUT_TYPES = {"function_call_output", "custom_tool_call_output"}
_TURN_STARTS = {"task_started", "turn_started"}
_TURN_ENDS = {"task_complete", "turn_complete", "turn_aborted"}

# Openings of user-role text that Codex writes itself, and why it is not the user.
_NOT_USER_OPENINGS = (
    ("<environment_context>", "environment_context"),
    ("<user_instructions>", "instructions"),
    ("# AGENTS.md instructions", "instructions"),
    ("<turn_aborted>", "interruption"),
    ("<user_shell_command>", "bash_mode"),
)


def looks_like_codex(text: str) -> bool:
    """True when the first record is a Codex envelope (``session_meta`` or another of its
    record types with a ``payload``)."""
    for line in text[:200000].splitlines()[:5]:
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            return False
        return (
            isinstance(record, dict)
            and record.get("type") in _ENVELOPE_TYPES
            and "payload" in record
        )
    return False


def load_codex(path: Path, text: str) -> Transcript:
    """Parse a Codex CLI rollout JSONL file."""
    builder = _Builder()
    skipped = SkippedLines()
    for number, kind, payload, timestamp in _records(path, text, skipped):
        builder.add(number, kind, payload, timestamp)
    return builder.transcript().model_copy(update={"skipped": dict(skipped)})


def _records(path: Path, text: str, skipped: SkippedLines):
    """(line number, record type, payload, timestamp) for every record, old layout included;
    lines of another tool and record types of newer versions are skipped and counted."""
    unknown: Counter[str] = Counter()
    for number, record in json_lines(path, text, skipped):
        if not isinstance(record, dict):
            skipped.skip("not Codex records")
            continue
        kind = record.get("type")
        if kind in _ENVELOPE_TYPES and isinstance(record.get("payload"), dict):
            yield number, kind, record["payload"], record.get("timestamp")
        elif record.get("record_type") == "state":
            continue
        elif kind in _ITEM_TYPES:  # before the envelope: bare response items
            yield number, "response_item", record, record.get("timestamp")
        elif number == 1 and "id" in record and "type" not in record:
            yield number, "session_meta", record, record.get("timestamp")
        elif isinstance(kind, str):
            unknown[kind] += 1
        else:
            skipped.skip("not Codex records")
    skipped.unknown_kinds(unknown, "Codex")


def _text(content: Any) -> str:
    """The text of a message's content blocks (``input_text``, ``output_text``, ``text``)."""
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif isinstance(block, dict) and block.get("type") == "input_image":
            parts.append("[image]")
    return "\n".join(parts)


def _output(payload: dict[str, Any]) -> tuple[str, bool]:
    """A call output's text and whether it failed: a string, content items, or (older
    rollouts) ``{"content", "success"}``."""
    output = payload.get("output")
    if isinstance(output, dict):
        return str(output.get("content") or ""), output.get("success") is False
    if isinstance(output, list):
        return _text(output), False
    return ("" if output is None else str(output)), False


def _call(payload: dict[str, Any]) -> dict[str, Any]:
    kind = payload["type"]
    call_id = payload.get("call_id") or payload.get("id") or ""
    if kind == "function_call":
        raw = payload.get("arguments") or "{}"
        try:
            args = json.loads(raw) if isinstance(raw, str) else raw
        except json.JSONDecodeError:
            args = {"arguments": raw}  # a model can emit invalid JSON; keep what it sent
        if not isinstance(args, dict):
            args = {"arguments": args}
        return {"name": payload.get("name") or "function", "args": args, "id": call_id}
    if kind == "custom_tool_call":
        return {
            "name": payload.get("name") or "custom_tool",
            "args": {"input": payload.get("input")},
            "id": call_id,
        }
    return {"name": "local_shell", "args": dict(payload.get("action") or {}), "id": call_id}


class _Builder:
    def __init__(self) -> None:
        self.messages: list[BaseMessage] = []
        self.compactions: list[dict[str, Any]] = []
        self.metadata: dict[str, Any] = {}
        self._usage: dict[int, UsagePoint] = {}
        self._thinking: list[str] = []
        self._prompt_start = 0
        self._last_input: int | None = None
        self._awaiting_after: dict[str, Any] | None = None
        # The turn under way: whether its prompt came, and work after it (then a user
        # message is one typed while Codex worked).
        self._turn_open = self._turn_prompted = self._turn_worked = False

    def transcript(self) -> Transcript:
        metadata = {**self.metadata, "compactions": self.compactions}
        usage = [self._usage[i] for i in sorted(self._usage)]
        return Transcript(format="codex", messages=self.messages, metadata=metadata, usage=usage)

    def add(self, number: int, kind: str, payload: dict[str, Any], timestamp: str | None) -> None:
        stamp = {"timestamp": timestamp} if timestamp else {}
        if kind == "session_meta":
            nested = payload.get("meta")
            meta = nested if isinstance(nested, dict) else payload
            for key in ("id", "cwd", "cli_version", "originator", "model_provider"):
                if meta.get(key):
                    self.metadata[f"session_{key}" if key == "id" else key] = meta[key]
        elif kind == "turn_context" and payload.get("model"):
            models = self.metadata.setdefault("models", [])
            if payload["model"] not in models:
                models.append(payload["model"])
        elif kind == "response_item":
            self._item(payload, stamp)
        elif kind == "event_msg" and payload.get("type") == "token_count":
            self._token_count(payload)
        elif kind == "event_msg" and payload.get("type") in _TURN_STARTS:
            self._start_turn()
        elif kind == "event_msg" and payload.get("type") in _TURN_ENDS:
            self._turn_open = False
        elif kind == "compacted":
            self._compacted(number, payload, stamp)

    def _start_turn(self) -> None:
        self._turn_open, self._turn_prompted, self._turn_worked = True, False, False

    def _item(self, payload: dict[str, Any], stamp: dict[str, Any]) -> None:
        kind = payload.get("type")
        if (
            kind in _CALL_TYPES
            or kind in _OUTPUT_TYPES
            or (kind == "message" and payload.get("role") == "assistant")
        ):
            self._turn_worked = self._turn_prompted
        if kind == "message":
            self._message(payload, stamp)
        elif kind == "reasoning":
            summary = [
                s.get("text", "") for s in payload.get("summary") or [] if isinstance(s, dict)
            ]
            self._thinking.extend(t for t in summary if t)
        elif kind in _CALL_TYPES:
            self._append_call(_call(payload), stamp)
        elif kind in _OUTPUT_TYPES:
            content, failed = _output(payload)
            self.messages.append(
                ToolMessage(
                    content=content,
                    tool_call_id=payload.get("call_id") or "",
                    status="error" if failed else "success",
                    additional_kwargs=dict(stamp),
                )
            )
        # web_search_call, ghost_snapshot (undo points) and encrypted compaction items carry
        # nothing a prompt shows as text.

    def _message(self, payload: dict[str, Any], stamp: dict[str, Any]) -> None:
        role = payload.get("role")
        text = _text(payload.get("content"))
        if role == "assistant":
            self.messages.append(AIMessage(content=text, additional_kwargs=self._ai_kwargs(stamp)))
        elif role in ("developer", "system"):
            self.messages.append(SystemMessage(content=text, additional_kwargs=dict(stamp)))
        else:
            stripped = text.lstrip()
            reason = next(
                (why for opening, why in _NOT_USER_OPENINGS if stripped.startswith(opening)), None
            )
            extra = {**stamp, "not_user": reason} if reason else dict(stamp)
            if reason is None and self._turn_open:
                if self._turn_prompted and self._turn_worked:
                    extra[QUEUED] = True  # typed while the turn ran: a steer
                self._turn_prompted = True
            self.messages.append(HumanMessage(content=text, additional_kwargs=extra))

    def _ai_kwargs(self, stamp: dict[str, Any]) -> dict[str, Any]:
        kwargs = dict(stamp)
        if self._thinking:
            kwargs["thinking"] = "\n\n".join(self._thinking)
            self._thinking = []
        return kwargs

    def _append_call(self, call: dict[str, Any], stamp: dict[str, Any]) -> None:
        last = self.messages[-1] if self.messages else None
        if isinstance(last, AIMessage):
            self.messages[-1] = AIMessage(
                content=last.content,
                tool_calls=[*last.tool_calls, call],
                additional_kwargs=last.additional_kwargs,
            )
        else:
            self.messages.append(
                AIMessage(content="", tool_calls=[call], additional_kwargs=self._ai_kwargs(stamp))
            )

    def _token_count(self, payload: dict[str, Any]) -> None:
        info = payload.get("info")
        if not isinstance(info, dict):
            return  # rate-limit only records carry no usage
        if info.get("model_context_window"):
            self.metadata["model_context_window"] = info["model_context_window"]
        last = info.get("last_token_usage")
        if not isinstance(last, dict):
            return
        reply = next(
            (
                i
                for i in range(len(self.messages) - 1, -1, -1)
                if isinstance(self.messages[i], AIMessage)
            ),
            None,
        )
        if reply is None or reply < self._prompt_start:
            return
        input_tokens = int(last.get("input_tokens") or 0)
        self._usage[reply] = UsagePoint(
            message_index=reply,
            input_tokens=input_tokens,
            output_tokens=last.get("output_tokens"),
            prompt_start=self._prompt_start,
        )
        self._last_input = input_tokens
        if self._awaiting_after is not None:
            self._awaiting_after["tokens_after"] = input_tokens
            self._awaiting_after = None

    def _compacted(self, number: int, payload: dict[str, Any], stamp: dict[str, Any]) -> None:
        summary = payload.get("message") or ""
        record = {
            "kind": "compacted",
            "line": number,
            "message_index": len(self.messages),
            "timestamp": stamp.get("timestamp"),
            "summary": summary,
            "tokens_before": self._last_input,
            "tokens_after": None,
        }
        self.compactions.append(record)
        self._awaiting_after = record
        self._prompt_start = len(self.messages)
        if summary:
            self.messages.append(
                HumanMessage(
                    content=summary,
                    additional_kwargs={
                        **stamp,
                        "not_user": "compact_summary",
                        "compact_summary": True,
                    },
                )
            )
