"""Claude Code session logs (``~/.claude/projects/…/<session>.jsonl``), one record a line.

Assistant replies are streamed as several records sharing ``message.id`` (one content block
each); they are merged into one AIMessage. ``tool_use`` blocks become tool calls and
``tool_result`` blocks in user records become ToolMessages. Human-role records that are not the
user speaking (meta records, task notifications, slash commands and their output, bash-mode
input and output, interruptions, hook output and system reminders, compaction summaries) are
marked ``not_user`` with the reason, so they are never taken for requests. Compaction markers
(``isCompactSummary`` user records, ``system`` records of subtype ``compact_boundary``) are kept
in ``metadata["compactions"]``.

Messages the user typed while the agent worked (Claude Code's ``queue-operation`` records and
``queued_command`` attachments, :mod:`agent_core.transcripts._claude_queue`) are HumanMessages
at their place with ``additional_kwargs["queued"]``, each request once.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from agent_core.storage._records import QUEUED
from agent_core.transcripts._claude_queue import (
    ATTACHMENT_RECORD,
    QUEUE_RECORD,
    attachment_prompt,
    kept_enqueues,
)
from agent_core.transcripts._lines import SkippedLines, json_lines
from agent_core.transcripts._transcript import Transcript, UsagePoint

__all__ = ["load_claude_code", "looks_like_claude_code"]

_CACHE_FIELDS = ("cache_read_input_tokens", "cache_creation_input_tokens")


def looks_like_claude_code(text: str) -> bool:
    """True when the first records are JSON objects and one has Claude Code's session fields."""
    head = [line for line in text[:50000].splitlines()[:6] if line.strip()]
    return (
        bool(head)
        and all(line.lstrip().startswith("{") for line in head)
        and any('"sessionId"' in line or '"parentUuid"' in line for line in head)
    )


def load_claude_code(path: Path, text: str) -> Transcript:
    """Parse a Claude Code JSONL session log."""
    skipped = SkippedLines()
    records = _records(path, text, skipped)
    builder = _Builder(kept_enqueues(records, lambda said: not_user_reason({}, said)))
    for number, record in records:
        builder.add(number, record)
    metadata: dict[str, Any] = {"compactions": builder.compactions}
    if builder.summaries:
        metadata["summaries"] = builder.summaries
    session_ids = sorted({str(r["sessionId"]) for _, r in records if r.get("sessionId")})
    if session_ids:
        metadata["session_ids"] = session_ids
    cwd = _working_directory(records)
    if cwd:
        # Paths in the handoff are shown relative to the directory the session worked in.
        metadata["cwd"] = cwd
    return Transcript(
        format="claude_code",
        messages=builder.messages,
        metadata=metadata,
        usage=builder.usage(),
        skipped=dict(skipped),
    )


def _working_directory(records: list[tuple[int, dict[str, Any]]]) -> str:
    """The directory most of the session's records were written in ("" when none says)."""
    counts = Counter(
        str(r["cwd"]) for _, r in records if isinstance(r.get("cwd"), str) and r["cwd"]
    )
    return counts.most_common(1)[0][0] if counts else ""


# Record types Claude Code writes that carry nothing for the conversation (undo snapshots,
# progress of running tools, titles): read and left, not counted as skipped.
_SILENT_TYPES = {
    "system",
    "summary",
    "file-history-snapshot",
    "progress",
    "custom-title",
    "tag",
    "agent-name",
    "pr-link",
    "last-prompt",
}
_READ_TYPES = {"user", "assistant", QUEUE_RECORD, ATTACHMENT_RECORD}


def _records(path: Path, text: str, skipped: SkippedLines) -> list[tuple[int, dict[str, Any]]]:
    """The file's Claude Code records; lines of another tool (no ``type``: a log-sharing
    tool's metadata line, say) and record types of newer versions are skipped and counted."""
    records = []
    unknown: Counter[str] = Counter()
    for number, record in json_lines(path, text, skipped):
        if not isinstance(record, dict) or not isinstance(record.get("type"), str):
            skipped.skip("not Claude Code records")
            continue
        kind = record["type"]
        if kind not in _READ_TYPES and kind not in _SILENT_TYPES:
            unknown[kind] += 1
            continue
        if kind in ("user", "assistant") and not isinstance(record.get("message"), dict):
            skipped.skip(f"{kind} records without a message")
            continue
        records.append((number, record))
    skipped.unknown_kinds(unknown, "Claude Code")
    return records


class _Builder:
    def __init__(self, queued: dict[int, str]) -> None:
        self.queued = queued  # the enqueue records kept as messages, by line
        self.messages: list[BaseMessage] = []
        self.compactions: list[dict[str, Any]] = []
        self.summaries: list[str] = []
        self._usage: dict[int, UsagePoint] = {}
        self._reply_index: dict[str, int] = {}

    def add(self, number: int, record: dict[str, Any]) -> None:
        kind = record["type"]
        if kind == "assistant":
            self._assistant(number, record)
        elif kind == "user":
            self._user(number, record)
        elif kind == "system" and record.get("subtype") == "compact_boundary":
            self.compactions.append(
                {
                    "kind": "compact_boundary",
                    "line": number,
                    "message_index": len(self.messages),
                    "timestamp": record.get("timestamp"),
                    "metadata": record.get("compactMetadata"),
                }
            )
        elif kind == "summary" and record.get("summary"):
            self.summaries.append(record["summary"])
        elif kind == QUEUE_RECORD and number in self.queued:
            self.messages.append(
                HumanMessage(
                    content=self.queued[number], additional_kwargs={**_stamp(record), QUEUED: True}
                )
            )
        elif kind == ATTACHMENT_RECORD:
            self._attachment(record)

    def usage(self) -> list[UsagePoint]:
        return [self._usage[i] for i in sorted(self._usage)]

    def _assistant(self, number: int, record: dict[str, Any]) -> None:
        message: dict[str, Any] = record["message"]  # checked in _records
        blocks = message.get("content") or []
        if isinstance(blocks, str):
            blocks = [{"type": "text", "text": blocks}]
        key = message.get("id") or record.get("uuid") or f"line-{number}"
        index = self._reply_index.get(key)
        if index is None:
            index = len(self.messages)
            self._reply_index[key] = index
            self.messages.append(
                AIMessage(
                    content="",
                    additional_kwargs=_stamp(record),
                    response_metadata={"model": message.get("model"), "id": key},
                )
            )
        reply = self.messages[index]
        if isinstance(reply, AIMessage):  # the index holds only replies
            self.messages[index] = _merge(reply, blocks)
        if usage := message.get("usage"):
            self._usage[index] = UsagePoint(
                message_index=index,
                input_tokens=int(usage.get("input_tokens", 0))
                + sum(int(usage.get(f) or 0) for f in _CACHE_FIELDS),
                output_tokens=usage.get("output_tokens"),
            )

    def _attachment(self, record: dict[str, Any]) -> None:
        """A queued message Claude Code sent into the running turn (or its own input that
        went through the queue, a task notification: not the user)."""
        found = attachment_prompt(record)
        if found is None or not found[0].strip():
            return
        prompt, why = found
        reason = why or not_user_reason({}, prompt)
        extra = {"not_user": reason} if reason else {QUEUED: True}
        self.messages.append(
            HumanMessage(content=prompt, additional_kwargs={**_stamp(record), **extra})
        )

    def _user(self, number: int, record: dict[str, Any]) -> None:
        content = record["message"].get("content")
        stamp = _stamp(record)
        if record.get("isCompactSummary"):
            stamp["compact_summary"] = True
            self.compactions.append(
                {
                    "kind": "compact_summary",
                    "line": number,
                    "message_index": len(self.messages),
                    "timestamp": record.get("timestamp"),
                }
            )
        if isinstance(content, str):
            self.messages.append(_human(record, content, stamp))
            return
        texts = []
        for block in content or []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                self.messages.append(_tool_message(block, stamp))
            elif isinstance(block, dict) and block.get("type") == "text":
                texts.append(block.get("text", ""))
        if texts:
            self.messages.append(_human(record, "\n".join(texts), stamp))


# Openings of human-role text that Claude Code writes itself, and why it is not the user.
_NOT_USER_OPENINGS = (
    ("<task-notification>", "task_notification"),
    ("<command-name>", "slash_command"),
    ("<command-message>", "slash_command"),
    ("<command-args>", "slash_command"),
    ("<local-command-stdout>", "command_output"),
    ("<local-command-stderr>", "command_output"),
    ("<bash-input>", "bash_mode"),
    ("<bash-stdout>", "bash_mode"),
    ("<bash-stderr>", "bash_mode"),
    ("[Request interrupted by user", "interruption"),
    ("<user-prompt-submit-hook>", "hook_output"),
    ("<system-reminder>", "system_reminder"),
    ("Caveat: The messages below were generated by the user while running local commands", "meta"),
)


def not_user_reason(record: dict[str, Any], text: str) -> str | None:
    """Why a human-role record is not the user speaking, or None when it is."""
    if record.get("isMeta"):
        return "meta"
    if record.get("isCompactSummary"):
        return "compact_summary"
    stripped = text.lstrip()
    return next((why for opening, why in _NOT_USER_OPENINGS if stripped.startswith(opening)), None)


def _human(record: dict[str, Any], text: str, stamp: dict[str, Any]) -> HumanMessage:
    reason = not_user_reason(record, text)
    extra = {**stamp, "not_user": reason} if reason else stamp
    return HumanMessage(content=text, additional_kwargs=extra)


def _stamp(record: dict[str, Any]) -> dict[str, Any]:
    return {k: record[k] for k in ("timestamp", "uuid") if record.get(k)}


def _merge(reply: AIMessage, blocks: list[dict[str, Any]]) -> AIMessage:
    """A streamed reply plus more content blocks (text, thinking, tool_use)."""
    text = reply.content if isinstance(reply.content, str) else ""
    calls = list(reply.tool_calls)
    kwargs = dict(reply.additional_kwargs)
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            text = f"{text}\n{block.get('text', '')}" if text else block.get("text", "")
        elif kind == "tool_use":
            calls.append(
                {"name": block["name"], "args": block.get("input") or {}, "id": block.get("id")}
            )
        elif kind == "thinking":
            kwargs["thinking"] = kwargs.get("thinking", "") + block.get("thinking", "")
    return AIMessage(
        content=text,
        tool_calls=calls,
        additional_kwargs=kwargs,
        response_metadata=reply.response_metadata,
    )


def _tool_message(block: dict[str, Any], stamp: dict[str, Any]) -> ToolMessage:
    content = block.get("content")
    if isinstance(content, list):
        content = "\n".join(
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        )
    return ToolMessage(
        content=content or "",
        tool_call_id=block.get("tool_use_id", ""),
        status="error" if block.get("is_error") else "success",
        additional_kwargs=dict(stamp),
    )
