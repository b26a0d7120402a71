"""Baton beside the agent's own summary: at each compaction the original agent made, the
summary it wrote there and the handoff Baton writes for the same cut, with their sizes and
the same probes scored on both.

The transcript is walked as a replay walks it, but it is cut where the agent cut and nowhere
else (where its summary ends: pi keeps its latest turns whole beside the summary, and those
go on into the next session on both sides): at each of the agent's compactions Baton's handoff ends the open session (facts-only by
default, chained like the agent's summaries: each is the previous one updated by what came
since) and the next session starts from it. The agent's own summary messages are left out of
Baton's sessions, so neither writer reads the other.

The probes come from the raw messages before the cut, by the handoff check's inventory
(:func:`~agent_core.handoff._inventory.take_inventory`, its own rules, independent of either
writer): every user request (its first 40 characters), every file written (its name),
every commit (its first 7 characters) and the task under way (the open todos, else the last
request). Both texts are scored the same way, as plain text: a probe counts when it appears
in the text, whitespace and case aside. Deterministic, no model call.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

from langchain_core.messages import BaseMessage
from pydantic import BaseModel, ConfigDict, Field

from agent_core.accounting._calibration import ContextEstimator
from agent_core.accounting._models import model_info
from agent_core.handoff._artifact import HandoffArtifact
from agent_core.handoff._inventory import take_inventory
from agent_core.providers._settings import ProviderSettings
from agent_core.replay._context import ReplayContext
from agent_core.replay._run import handoff_model_for, replay_policy, session_handoff
from agent_core.transcripts._transcript import NOT_SENT, Transcript

__all__ = ["AgentCut", "ProbeScore", "cuts_at_agent_compactions"]

_REQUEST_CHARS = 40
# The artifact's first line is a machine-readable comment (its id, the time it was made):
# left out, so the text compared is what a reader reads and the same on every run.
_MACHINE_HEADER = re.compile(r"\A<!--.*?-->\n", re.DOTALL)
_SHA_CHARS = 7


class ProbeScore(BaseModel):
    """How many of one kind of probe a text holds."""

    model_config = ConfigDict(extra="forbid")

    kind: str
    held: int = Field(ge=0)
    total: int = Field(ge=0)
    missing: list[str] = Field(default_factory=list)

    def __str__(self) -> str:
        return f"{self.kind} {self.held}/{self.total}"


class AgentCut(BaseModel):
    """One of the agent's compactions, with both texts for it and their figures."""

    model_config = ConfigDict(extra="forbid")

    number: int
    agent: str
    message_index: int
    """Index in ``Transcript.messages`` of the first message after the cut."""
    messages_before: int
    """Messages of the conversation before the cut (the agent's own summaries left out):
    those its summary covers, not the ones it kept whole beside it."""
    kept_whole: int = Field(default=0, ge=0)
    """Messages the agent kept whole beside its summary (between the cut and its compaction:
    pi keeps its latest turns); 0 when its summary replaced everything before it."""
    tokens_before: int | None = None
    timestamp: str | None = None
    agent_summary: str
    agent_tokens: int
    agent_probes: list[ProbeScore]
    baton_handoff: str
    baton_tokens: int
    baton_probes: list[ProbeScore]


def cuts_at_agent_compactions(
    transcript: Transcript,
    *,
    model: str,
    handoff_model: str = "facts",
    providers: ProviderSettings | None = None,
    budget_tokens: int = 1500,
) -> list[AgentCut]:
    """One :class:`AgentCut` per compaction of the agent's own in ``transcript`` (none when
    it made none). Tokens are counted for ``model``; Baton's handoffs are ``handoff_model``'s
    (``facts``: no model; a ``provider:model`` configured by ``providers``) at
    ``budget_tokens``."""
    compactions = transcript.compactions
    if not compactions:
        return []
    info = model_info(model)
    estimator = ContextEstimator(model)
    context = ReplayContext(estimator, replay_policy(window=info.context_window))
    writer = handoff_model_for(handoff_model, providers)
    conversation = [(i, m) for i, m in enumerate(transcript.messages) if not _agent_summary(m)]
    metadata = {**transcript.metadata, "format": transcript.format}
    previous: HandoffArtifact | None = None
    cuts: list[AgentCut] = []
    position = 0
    for number, compaction in enumerate(compactions, start=1):
        # Cut where the agent's summary ends: what it kept whole goes on into the next
        # session, in Baton's run as in the agent's.
        cut = (
            compaction.message_index
            if compaction.summarized_until is None
            else compaction.summarized_until
        )
        while position < len(conversation) and conversation[position][0] < cut:
            index, message = conversation[position]
            if not message.additional_kwargs.get(NOT_SENT):
                context.append(message, index)
            position += 1
        before = [m for _, m in conversation[:position]]
        if not context.messages:
            continue  # the file opens with a compaction made before it began
        measured = context.measure()
        previous, opening = session_handoff(
            context,
            utilization=measured.fraction,
            model=model,
            handoff_model=writer,
            metadata=metadata,
            previous=previous,
            budget_tokens=budget_tokens,
            window=info.context_window,
        )
        shown = _MACHINE_HEADER.sub("", previous.to_markdown(), count=1)
        count = estimator.counter.count_text
        cuts.append(
            AgentCut(
                number=number,
                agent=compaction.agent or transcript.format,
                message_index=compaction.message_index,
                messages_before=len(before),
                kept_whole=sum(
                    cut <= index < compaction.message_index for index, _ in conversation
                ),
                tokens_before=compaction.tokens_before,
                timestamp=compaction.timestamp,
                agent_summary=compaction.summary,
                agent_tokens=count(compaction.summary),
                agent_probes=probe_scores(before, metadata, compaction.summary),
                baton_handoff=shown,
                baton_tokens=count(shown),
                baton_probes=probe_scores(before, metadata, shown),
            )
        )
        context.open_session(opening)
    return cuts


def _agent_summary(message: BaseMessage) -> bool:
    return bool(message.additional_kwargs.get("compact_summary"))


def probe_scores(
    messages: Sequence[BaseMessage], metadata: dict[str, object], text: str
) -> list[ProbeScore]:
    """The probes of ``messages`` (see the module docstring) scored on ``text``."""
    inventory = take_inventory(messages, metadata)
    flat = " ".join(text.split()).lower()
    requests = list(dict.fromkeys(_head(words) for words, _ in inventory.requests))
    files = list(dict.fromkeys(posixpath.basename(p.rstrip("/")) for p in inventory.files))
    commits = [sha[:_SHA_CHARS] for sha in inventory.commits]
    task = [_head(t) for t in inventory.todos] or requests[-1:]
    return [
        _score("requests", requests, flat),
        _score("files", [f for f in files if f], flat),
        _score("commits", commits, flat),
        _score("task", task, flat),
    ]


def _head(words: str) -> str:
    return " ".join(words.split())[:_REQUEST_CHARS]


def _score(kind: str, probes: list[str], flat: str) -> ProbeScore:
    missing = [p for p in probes if p.lower() not in flat]
    return ProbeScore(
        kind=kind, held=len(probes) - len(missing), total=len(probes), missing=missing[:3]
    )
