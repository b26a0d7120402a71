"""The result of importing a transcript: langchain messages plus provider-reported usage."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage
from pydantic import BaseModel, ConfigDict, Field

__all__ = ["NOT_SENT", "OriginalCompaction", "Transcript", "UsagePoint", "compacted"]

# ``additional_kwargs`` key on messages a tool recorded but never sent to the model (aider's
# ``/commands``): they belong to the record, not to any prompt.
NOT_SENT = "baton_not_sent"


class UsagePoint(BaseModel):
    """Usage a provider reported for one model call.

    ``message_index`` is the index of the AIMessage the call produced; the call's input was
    ``messages[prompt_start:message_index]`` minus messages marked ``NOT_SENT``
    (``Transcript.prompt``). ``prompt_start`` moves past a cleared history (aider's ``/clear``).
    ``input_tokens`` includes cached input (cache reads and writes) where the source splits it.
    ``system_label`` names the system prompt the call ran under where the source tells them
    apart (aider's chat mode: ``diff``, ``whole``, ``ask``…); calls with different labels do not
    share a system prompt.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    message_index: int = Field(ge=0)
    input_tokens: int = Field(ge=0)
    output_tokens: int | None = Field(default=None, ge=0)
    prompt_start: int = Field(default=0, ge=0)
    system_label: str | None = None


class OriginalCompaction(BaseModel):
    """Where the original agent compacted, what it wrote, and the context around it."""

    model_config = ConfigDict(extra="forbid")

    message_index: int
    """Index in ``Transcript.messages`` of the first message after the compaction."""
    summarized_until: int | None = None
    """Index in ``Transcript.messages`` of the first message the agent kept whole: pi keeps
    its latest turns verbatim beside the summary, which covers only the messages before
    this one. ``None``: the summary covers every message before ``message_index``."""
    summary: str = ""
    tokens_before: int | None = None
    tokens_after: int | None = None
    trigger: str = ""
    """``auto`` or ``manual`` where the agent recorded it."""
    timestamp: str | None = None
    agent: str = ""
    """The format of the agent that wrote the summary (``claude_code``, ``codex``, ``pi``…)."""


class Transcript(BaseModel):
    """An imported conversation in one common shape, whatever tool wrote it."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    format: str
    messages: list[BaseMessage]
    metadata: dict[str, Any] = Field(default_factory=dict)
    usage: list[UsagePoint] = Field(default_factory=list)
    compactions: list[OriginalCompaction] = Field(default_factory=list)
    """The original agent's own compactions, in order (filled by ``load_transcript``)."""
    skipped: dict[str, int] = Field(default_factory=dict)
    """Lines the reader passed over, by why (records of no kind it reads, lines of another
    tool): said at import, never silently dropped."""

    def skipped_note(self) -> str:
        """``3 lines skipped: not Claude Code records`` (``""`` when nothing was)."""
        return "; ".join(
            f"{count:,} line{'' if count == 1 else 's'} skipped: {why}"
            for why, count in self.skipped.items()
        )

    def prompt(self, point: UsagePoint) -> list[BaseMessage]:
        """The messages the call behind ``point`` was sent, in order."""
        window = self.messages[point.prompt_start : point.message_index]
        return [m for m in window if not m.additional_kwargs.get(NOT_SENT)]


def compacted(
    index: int,
    summary: str,
    stamp: dict[str, Any],
    tokens_before: int | None = None,
    summarized_until: int | None = None,
) -> tuple[dict[str, Any], HumanMessage]:
    """An agent's own compaction whose summary replaces the history before it (Codex's, pi's,
    opencode's): its ``metadata["compactions"]`` record (kind ``compacted``, at message
    ``index``; the summary covering the messages before ``summarized_until`` when the agent
    kept the ones after it whole) and the summary as the ``not_user`` HumanMessage the agent
    sent on with."""
    record = {
        "kind": "compacted",
        "message_index": index,
        "summarized_until": summarized_until,
        "timestamp": stamp.get("timestamp"),
        "summary": summary,
        "tokens_before": tokens_before,
        "tokens_after": None,
    }
    message = HumanMessage(
        content=summary,
        additional_kwargs={**stamp, "not_user": "compact_summary", "compact_summary": True},
    )
    return record, message
