"""What a replay tells, as one typed union: a mask, a compaction or a reset where the app's
pipeline would have made one, then the replay's summary.

Each kind is a frozen pydantic model told apart by ``event``. ``model_dump(mode="json")`` is
the flat JSON object the command line prints and the app stores (``{"event": "reset", ...}``,
the keys in the order they always had), and :func:`parse_replay_event` reads one back. Runs
stored before a field was added lack it: such a field has a default that says so (``None``,
``0``, nothing), so an old run still reads; every other key is required, and a key no field
names is refused.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from agent_core.accounting._calibration import Basis
from agent_core.handoff._artifact import HandoffArtifact
from agent_core.policy import Strategy

__all__ = [
    "ReplayMask",
    "ReplayCompaction",
    "ReplayReset",
    "ReplaySummary",
    "ReplayEvent",
    "parse_replay_event",
]


class _Replayed(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ReplayMask(_Replayed):
    """Old tool outputs masked before the model call after message ``message_index``:
    ``outputs`` of them, the context from ``utilization`` to ``utilization_after``."""

    event: Literal["mask"] = "mask"
    message_index: int
    session_number: int
    utilization: float
    basis: Basis
    utilization_after: float
    outputs: int
    tokens_before: int
    tokens_after: int


class ReplayCompaction(_Replayed):
    """The context compacted at ``utilization`` before the model call after message
    ``message_index`` (written at ``timestamp``, where the transcript says)."""

    event: Literal["compaction"] = "compaction"
    message_index: int
    timestamp: str | None = None
    #: None in runs stored before the session was recorded.
    session_number: int | None = None
    utilization: float
    basis: Basis
    messages_summarized: int
    tokens_after: int


class ReplayReset(_Replayed):
    """A reset at ``utilization`` before the model call after message ``message_index``:
    session ``session_number`` starts from ``handoff`` (``handoff_tokens`` long; None in runs
    stored before it was counted)."""

    event: Literal["reset"] = "reset"
    message_index: int
    timestamp: str | None = None
    utilization: float
    basis: Basis
    session_number: int
    handoff_tokens: int | None = None
    handoff: HandoffArtifact


class ReplaySummary(_Replayed):
    """The replay's last event: what it ran with and what it did. Runs stored before masking
    was replayed name no thresholds but the strategy's, and no masks."""

    event: Literal["summary"] = "summary"
    format: str
    messages: int
    usage_points: int
    model: str
    window: int
    strategy: Strategy
    effective_strategy: Literal["compact", "reset"] | None = None
    mask_threshold: float | None = None
    compact_threshold: float | None = None
    reset_threshold: float | None = None
    masks: int = 0
    resets: int
    compactions: int
    sessions: int
    final_utilization: float
    #: The messages (numbered from 1) alone past the reset point.
    oversized_messages: list[int] = []
    skipped: str = ""
    seconds: float


#: Every event a replay yields, told apart by ``event``.
ReplayEvent = Annotated[
    ReplayMask | ReplayCompaction | ReplayReset | ReplaySummary, Field(discriminator="event")
]

_EVENT: TypeAdapter[ReplayEvent] = TypeAdapter(ReplayEvent)


def parse_replay_event(stored: dict[str, Any]) -> ReplayEvent:
    """The event of a printed or stored JSON object (``event.model_dump(mode="json")``, or
    an older run's); raises ``pydantic.ValidationError`` for any other shape."""
    return _EVENT.validate_python(stored)
