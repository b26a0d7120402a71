"""An imported transcript cut into the sessions its own agent had: one per compaction.

Claude Code marks a compaction twice, a ``compact_boundary`` system record (with the token
count before it) followed by the user record holding the summary it wrote; Codex writes one
``compacted`` record with the summary (the loader adds the token counts around it). Either
way the summary is not a message of the new session but the card of its divider, as a
handoff is in Baton, and the tokens after come from the first call made after the summary.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import BaseMessage
from pydantic import BaseModel, ConfigDict, Field

from agent_core.context._build import content_text
from agent_core.transcripts._transcript import OriginalCompaction, Transcript

__all__ = ["ImportedSession", "OriginalCompaction", "agent_compactions", "split_sessions"]


class ImportedSession(BaseModel):
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    number: int
    compaction: OriginalCompaction | None = None
    """The compaction that opened this session (``None`` for the first)."""
    messages: list[BaseMessage] = Field(default_factory=list)
    first_index: int = 0
    """Index in ``Transcript.messages`` of ``messages[0]``."""


def split_sessions(transcript: Transcript) -> list[ImportedSession]:
    """The transcript's messages in sessions, compaction summaries moved to the dividers."""
    compactions, summary_indexes = _compactions(transcript)
    starts = {c.message_index: c for c in compactions}
    sessions = [ImportedSession(number=1)]
    for index, message in enumerate(transcript.messages):
        if index in starts:
            if index == 0:  # a session continued from a compaction before this file began
                sessions[0].compaction = starts[0]
            else:
                sessions.append(
                    ImportedSession(
                        number=len(sessions) + 1, compaction=starts[index], first_index=index
                    )
                )
        if index in summary_indexes:
            continue
        if not sessions[-1].messages:
            sessions[-1].first_index = index
        sessions[-1].messages.append(message)
    for compaction in compactions:  # the file ends right after a compaction
        if compaction.message_index >= len(transcript.messages) and compaction.message_index > 0:
            sessions.append(
                ImportedSession(
                    number=len(sessions) + 1,
                    compaction=compaction,
                    first_index=compaction.message_index,
                )
            )
    return sessions


def agent_compactions(transcript: Transcript) -> list[OriginalCompaction]:
    """The original agent's own compactions in ``transcript``, in order: where each cut,
    the summary the agent wrote there and the tokens around it (pure)."""
    return _compactions(transcript)[0]


def _compactions(transcript: Transcript) -> tuple[list[OriginalCompaction], set[int]]:
    """The compactions in order, and the indexes of the messages that are their summaries."""
    messages = transcript.messages
    found: list[OriginalCompaction] = []
    summaries: set[int] = set()
    for record in transcript.metadata.get("compactions") or []:
        index = int(record.get("message_index") or 0)
        kind = record.get("kind")
        if kind == "compact_summary":
            if index < len(messages):
                summaries.add(index)
            text = content_text(messages[index].content) if index < len(messages) else ""
            last = found[-1] if found else None
            # The boundary record just before it is the same compaction.
            if last is not None and not last.summary and index - last.message_index <= 1:
                last.summary = text
                continue
            found.append(
                OriginalCompaction(
                    message_index=index, summary=text, timestamp=record.get("timestamp")
                )
            )
        elif kind == "compact_boundary":
            meta: dict[str, Any] = record.get("metadata") or {}
            before = meta.get("preTokens")
            found.append(
                OriginalCompaction(
                    message_index=index,
                    tokens_before=int(before) if before is not None else None,
                    trigger=str(meta.get("trigger") or ""),
                    timestamp=record.get("timestamp"),
                )
            )
        elif kind == "compacted":
            if index < len(messages) and messages[index].additional_kwargs.get("compact_summary"):
                summaries.add(index)
            found.append(
                OriginalCompaction(
                    message_index=index,
                    summarized_until=record.get("summarized_until"),
                    summary=str(record.get("summary") or ""),
                    tokens_before=record.get("tokens_before"),
                    tokens_after=record.get("tokens_after"),
                    timestamp=record.get("timestamp"),
                )
            )
    for compaction in found:
        compaction.agent = transcript.format
        if compaction.tokens_before is None:
            compaction.tokens_before = _last_input(transcript, compaction.message_index)
        if compaction.tokens_after is None:
            compaction.tokens_after = _next_input(transcript, compaction.message_index)
    return found, summaries


def _last_input(transcript: Transcript, index: int) -> int | None:
    before = [u.input_tokens for u in transcript.usage if u.message_index < index]
    return before[-1] if before else None


def _next_input(transcript: Transcript, index: int) -> int | None:
    after = [u.input_tokens for u in transcript.usage if u.message_index > index]
    return after[0] if after else None
