"""pi coding agent sessions (``~/.pi/agent/sessions/…/<time>_<id>.jsonl``), one entry a line.

The first line is the ``session`` header (``id``, ``cwd``, ``version``; version 1 has no entry
ids). Entries are ``message`` (an agent message: ``user``, ``assistant`` with ``text`` /
``thinking`` / ``toolCall`` blocks and ``usage``, ``toolResult``, ``bashExecution`` for the
user's ``!`` commands, ``custom``), ``model_change``, ``thinking_level_change``,
``compaction`` (pi's own summary, with ``tokensBefore``), ``branch_summary``,
``custom_message``, ``custom``, ``label`` and ``session_info``.

From version 2 entries form a tree (``id`` / ``parentId``): going back to an earlier message
starts a branch, and the session continues from the last entry written. As pi itself does when
it resumes, the conversation is the path from that entry back to the root; entries of branches
the session left are counted as skipped. A ``compaction`` is kept in ``metadata["compactions"]``
(kind ``compacted``, as Codex's) and its summary as a ``not_user`` HumanMessage, which is what
pi sends the model in place of the older messages.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from agent_core.transcripts._lines import SkippedLines, json_lines
from agent_core.transcripts._transcript import NOT_SENT, Transcript, UsagePoint, compacted

__all__ = ["load_pi", "looks_like_pi"]

_SILENT = {"custom", "label", "session_info"}  # extension state and bookmarks: no message
_READ = {
    "session",
    "message",
    "model_change",
    "thinking_level_change",
    "compaction",
    "branch_summary",
    "custom_message",
}


def looks_like_pi(text: str) -> bool:
    """True when the first line is pi's ``session`` header."""
    first = text.lstrip()[:400]
    return first.startswith('{"type":"session"') or first.startswith('{"type": "session"')


def load_pi(path: Path, text: str) -> Transcript:
    """Parse a pi session JSONL file."""
    skipped = SkippedLines()
    entries: list[dict[str, Any]] = []
    unknown: Counter[str] = Counter()
    for position, (_number, record) in enumerate(json_lines(path, text, skipped)):
        kind = record.get("type") if isinstance(record, dict) else None
        if not isinstance(kind, str):
            skipped.skip("not pi session entries")
        elif kind in _READ or kind in _SILENT:
            # Where pi counts it: a version 1 compaction names the first entry it kept by
            # its index among the file's entries.
            record[_POSITION] = position
            entries.append(record)
        else:
            unknown[kind] += 1
    skipped.unknown_kinds(unknown, "pi")
    branch = _current_branch(entries)
    if len(branch) < len(entries):
        skipped["entries of branches the session left"] += len(entries) - len(branch)
    builder = _Builder()
    for entry in branch:
        builder.add(entry)
    return Transcript(
        format="pi",
        messages=builder.messages,
        metadata={**builder.metadata, "compactions": builder.compactions},
        usage=builder.usage,
        skipped=dict(skipped),
    )


def _current_branch(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The entries from the root to the last one written (all of them, in file order, for a
    version 1 file, whose entries have no ids)."""
    header = [e for e in entries if e["type"] == "session"]
    tree = [e for e in entries if e["type"] != "session"]
    if not tree or not all(isinstance(e.get("id"), str) for e in tree):
        return entries
    by_id = {e["id"]: e for e in tree}
    path: list[dict[str, Any]] = []
    current: dict[str, Any] | None = tree[-1]
    while current is not None and len(path) <= len(tree):
        path.append(current)
        parent = current.get("parentId")
        current = by_id.get(parent) if isinstance(parent, str) else None
    return header + path[::-1]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text") or ""))
        elif isinstance(block, dict) and block.get("type") == "image":
            parts.append("[image]")
    return "\n".join(parts)


_POSITION = "__position"


class _Builder:
    def __init__(self) -> None:
        self.messages: list[BaseMessage] = []
        self.usage: list[UsagePoint] = []
        self.compactions: list[dict[str, Any]] = []
        self.metadata: dict[str, Any] = {}
        self._prompt_start = 0
        # The first message each entry gave (or would have given), by its file position
        # and by its id: where a compaction's first kept entry starts among the messages.
        self._at_position: dict[int, int] = {}
        self._at_id: dict[str, int] = {}

    def add(self, entry: dict[str, Any]) -> None:
        kind = entry["type"]
        self._at_position[entry.get(_POSITION, -1)] = len(self.messages)
        if isinstance(entry.get("id"), str):
            self._at_id[entry["id"]] = len(self.messages)
        stamp = {"timestamp": entry["timestamp"]} if entry.get("timestamp") else {}
        if kind == "session":
            for key in ("id", "cwd", "version", "modelId"):
                if entry.get(key) is not None:
                    self.metadata["session_id" if key == "id" else key] = entry[key]
            if entry.get("modelId"):
                self._model(str(entry["modelId"]))
        elif kind == "model_change" and entry.get("modelId"):
            self._model(str(entry["modelId"]))
        elif kind == "thinking_level_change":
            self.metadata.setdefault("thinking_levels", []).append(entry.get("thinkingLevel"))
        elif kind == "message" and isinstance(entry.get("message"), dict):
            self._message(entry["message"], stamp)
        elif kind == "compaction":
            self._compaction(entry, stamp)
        elif kind in ("branch_summary", "custom_message"):
            text = str(entry.get("summary") or "") or _text(entry.get("content"))
            self._note(text, kind, stamp)

    def _model(self, model: str) -> None:
        models = self.metadata.setdefault("models", [])
        if model not in models:
            models.append(model)

    def _message(self, message: dict[str, Any], stamp: dict[str, Any]) -> None:
        role = message.get("role")
        if role == "user":
            self.messages.append(
                HumanMessage(content=_text(message.get("content")), additional_kwargs=dict(stamp))
            )
        elif role == "assistant":
            self._assistant(message, stamp)
        elif role == "toolResult":
            self.messages.append(
                ToolMessage(
                    content=_text(message.get("content")),
                    tool_call_id=str(message.get("toolCallId") or ""),
                    status="error" if message.get("isError") else "success",
                    additional_kwargs=dict(stamp),
                )
            )
        elif role == "bashExecution":
            # The user's own ``!`` command: pi sends its output as a user turn, unless the
            # user ran it with ``!!`` (kept out of the context).
            text = f"$ {message.get('command', '')}\n{message.get('output') or ''}".rstrip()
            extra = {NOT_SENT: True} if message.get("excludeFromContext") else {}
            self._note(text, "bash_mode", {**stamp, **extra})
        elif role in ("custom", "hookMessage", "branchSummary", "compactionSummary"):
            text = str(message.get("summary") or "") or _text(message.get("content"))
            self._note(text, str(role), stamp)

    def _assistant(self, message: dict[str, Any], stamp: dict[str, Any]) -> None:
        texts, thinking, calls = [], [], []
        for block in message.get("content") or []:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text":
                texts.append(str(block.get("text") or ""))
            elif kind == "thinking":
                thinking.append(str(block.get("thinking") or ""))
            elif kind == "toolCall":
                args = block.get("arguments")
                calls.append(
                    {
                        "name": str(block.get("name") or "tool"),
                        "args": args if isinstance(args, dict) else {"arguments": args},
                        "id": block.get("id"),
                    }
                )
        kwargs = dict(stamp)
        if thinking:
            kwargs["thinking"] = "\n\n".join(t for t in thinking if t)
        self.messages.append(
            AIMessage(
                content="\n".join(texts),
                tool_calls=calls,
                additional_kwargs=kwargs,
                response_metadata={"model": message.get("model")},
            )
        )
        usage = message.get("usage")
        if isinstance(usage, dict):
            cached = int(usage.get("cacheRead") or 0) + int(usage.get("cacheWrite") or 0)
            self.usage.append(
                UsagePoint(
                    message_index=len(self.messages) - 1,
                    input_tokens=int(usage.get("input") or 0) + cached,
                    output_tokens=usage.get("output"),
                    prompt_start=self._prompt_start,
                )
            )

    def _compaction(self, entry: dict[str, Any], stamp: dict[str, Any]) -> None:
        before = entry.get("tokensBefore")
        kept = self._first_kept(entry)
        record, summary = compacted(
            len(self.messages),
            str(entry.get("summary") or ""),
            stamp,
            int(before) if isinstance(before, int | float) else None,
            summarized_until=kept,
        )
        self.compactions.append(record)
        # pi goes on with the summary and the entries it kept whole.
        self._prompt_start = len(self.messages) if kept is None else kept
        self.messages.append(summary)

    def _first_kept(self, entry: dict[str, Any]) -> int | None:
        """The index of the first message pi kept whole after this compaction (version 2 on
        name the entry by ``firstKeptEntryId``, version 1 by ``firstKeptEntryIndex``), or
        ``None`` when it names none this branch holds."""
        kept_id, kept_index = entry.get("firstKeptEntryId"), entry.get("firstKeptEntryIndex")
        if isinstance(kept_id, str):
            found = self._at_id.get(kept_id)
        elif isinstance(kept_index, int):
            found = self._at_position.get(kept_index)
        else:
            found = None
        return found if found is not None and found < len(self.messages) else None

    def _note(self, text: str, why: str, stamp: dict[str, Any]) -> None:
        """Human-role text pi writes itself (summaries, extension messages, ``!`` commands)."""
        self.messages.append(
            HumanMessage(content=text, additional_kwargs={**stamp, "not_user": why})
        )
