"""The stream event protocol (DESIGN.md §2): what a run tells the UI, as one typed union.

Each event is a pydantic model with a ``type`` discriminator and flat, typed fields;
``model_dump()`` gives the wire and storage shape ``{"type": ..., "data": {...}}`` that
crosses a websocket or is stored as JSON, unchanged from when events were plain dicts, and
:func:`parse_event` reads that shape back. Every field is typed: a key no field names is
refused, where it once rode along unseen.

A field with a default is sent only when it was given (or read): the shape of an event is
what its producer said, so typing a field never adds a key the UI did not get before.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    SerializerFunctionWrapHandler,
    Tag,
    TypeAdapter,
    field_serializer,
    model_serializer,
    model_validator,
)

from agent_core.accounting._calibration import Basis
from agent_core.handoff._artifact import HandoffArtifact
from agent_core.storage._records import SessionRecord, StoredMessage

__all__ = [
    "Basis",
    "WireEvent",
    "ResetPhase",
    "MarkerKind",
    "HandoffStatus",
    "CompactStatus",
    "TokenEvent",
    "MessageEvent",
    "UtilizationEvent",
    "ContextResetEvent",
    "ResetStarting",
    "InputBlocked",
    "ResetComplete",
    "ResetFailed",
    "ResetEvent",
    "MarkerEvent",
    "WarningEvent",
    "QueuedEvent",
    "AcceptedEvent",
    "HandoffEvent",
    "CompactEvent",
    "ErrorEvent",
    "DoneEvent",
    "Event",
    "parse_event",
    "reply_cut_off",
]

ResetPhase = Literal["reset_starting", "input_blocked", "reset_complete", "reset_failed"]
MarkerKind = Literal["compaction", "todo_compressed", "masking"]
HandoffStatus = Literal["started", "nothing", "cancelled", "failed", "done"]
CompactStatus = Literal["failed", "discarded", "nothing", "done"]


class WireEvent(BaseModel):
    """Flat fields here, ``{"type": ..., "data": {...}}`` on the wire: the base of every
    event here, and of the chat's own (``chat_app.services.presentation.ui_events``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    #: Fields sent whether given or defaulted (what tells a class apart on the wire).
    always_sent: ClassVar[frozenset[str]] = frozenset()

    @model_validator(mode="before")
    @classmethod
    def _from_wire(cls, value: Any) -> Any:
        if isinstance(value, dict) and set(value) == {"type", "data"}:
            return {**(value["data"] or {}), "type": value["type"]}
        return value

    @model_serializer(mode="wrap")
    def _to_wire(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        flat: dict[str, Any] = handler(self)
        kind = flat.pop("type")
        sent = self.model_fields_set | self.always_sent
        return {"type": kind, "data": {k: v for k, v in flat.items() if k in sent}}


class TokenEvent(WireEvent):
    """Words of the reply being streamed."""

    type: Literal["token"] = "token"
    text: str


class MessageEvent(BaseModel):
    """A stored row (a user message delivered, a reply, a tool result, a marker)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["message"] = "message"
    row: StoredMessage

    @model_validator(mode="before")
    @classmethod
    def _from_wire(cls, value: Any) -> Any:
        if isinstance(value, dict) and set(value) == {"type", "data"}:
            return {"type": value["type"], "row": value["data"]}
        return value

    @model_serializer(mode="plain")
    def _to_wire(self) -> dict[str, Any]:
        # The row as JSON whatever the mode: the event's data was always the row's JSON.
        return {"type": self.type, "data": self.row.model_dump(mode="json")}

    @classmethod
    def of(cls, row: StoredMessage) -> MessageEvent:
        """The event of ``row`` as it is now (a copy: the row may change after)."""
        return cls(row=row.model_copy(deep=True))


class UtilizationEvent(WireEvent):
    """How full the context is; ``fraction`` is worked out from ``tokens`` and ``window``."""

    type: Literal["utilization"] = "utilization"
    tokens: int
    window: int
    fraction: float = 0.0
    basis: Basis
    compact_threshold: float = 0.5
    reset_threshold: float = 0.8
    warn_threshold: float | None = None
    session_number: int = 1

    @model_validator(mode="before")
    @classmethod
    def _fraction(cls, value: Any) -> Any:
        if isinstance(value, dict) and "tokens" in value and "fraction" not in value:
            window = value.get("window")
            fraction = value["tokens"] / window if window else 0.0
            return {**value, "fraction": round(fraction, 4)}
        return value


_RECORDS: TypeAdapter[SessionRecord | list[StoredMessage] | HandoffArtifact] = TypeAdapter(
    SessionRecord | list[StoredMessage] | HandoffArtifact
)


class ContextResetEvent(WireEvent):
    """A phase of a context reset (docs/architecture.md §4): the base of the four phase
    classes, each with its own fields and its ``event`` (a :data:`ResetPhase`), which tells
    them apart on the wire and is always sent.
    ``session_number`` is the old session's at the start and the new one's at completion."""

    always_sent: ClassVar[frozenset[str]] = frozenset({"event"})
    type: Literal["context_reset"] = "context_reset"
    session_number: int = 1


class ResetStarting(ContextResetEvent):
    """The reset of session ``session_id`` begins (``trigger`` at ``context_utilization``
    of the window; ``threshold`` is the policy's reset threshold)."""

    event: Literal["reset_starting"] = "reset_starting"
    session_id: str
    context_utilization: float
    trigger: str
    threshold: float


class InputBlocked(ContextResetEvent):
    """Messages sent now wait for the reset (``reason`` says why)."""

    event: Literal["input_blocked"] = "input_blocked"
    reason: str


class ResetComplete(ContextResetEvent):
    """Session ``old_session_id`` ended with ``handoff``; ``session`` is the one it opened,
    ``delivered`` the user messages it carried into it."""

    event: Literal["reset_complete"] = "reset_complete"
    old_session_id: str
    new_session_id: str
    session: SessionRecord
    trigger: str
    utilization: float
    model: str
    handoff: HandoffArtifact
    handoff_source: str
    handoff_tokens: int
    handoff_input_tokens: int
    review: bool
    delivered: list[StoredMessage] = []

    @field_serializer("session", "delivered", "handoff")
    def _as_json(self, value: Any) -> Any:
        # Records as JSON whatever the mode: the wire always carried them so.
        return _RECORDS.dump_python(value, mode="json")


class ResetFailed(ContextResetEvent):
    """The reset failed (``reason``), or a cancelled ``/handoff`` ended it (``cancelled``);
    the old session goes on."""

    event: Literal["reset_failed"] = "reset_failed"
    reason: str
    cancelled: bool = False


def _phase(value: Any) -> str | None:
    """A reset event's phase, whether ``value`` is flat, on the wire or an event."""
    if isinstance(value, dict):
        return value.get("event") or (value.get("data") or {}).get("event")
    return getattr(value, "event", None)


#: The four phases of a reset as one type, told apart by ``event``.
ResetEvent = Annotated[
    Annotated[ResetStarting, Tag("reset_starting")]
    | Annotated[InputBlocked, Tag("input_blocked")]
    | Annotated[ResetComplete, Tag("reset_complete")]
    | Annotated[ResetFailed, Tag("reset_failed")],
    Discriminator(_phase),
]


class MarkerEvent(WireEvent):
    """A compaction, todo compression or mask, with the stored marker row (``marker_id``)
    and the position of its context edit (``edit``; None when nothing was edited)."""

    type: MarkerKind
    message: str = ""
    session_number: int = 1
    tokens_before: int = 0
    tokens_after: int = 0
    messages: int | None = None  # a compaction's summarized messages
    outputs: int | None = None  # a mask's tool outputs
    todo_id: str | None = None  # a todo compression's todo
    call_input_tokens: int | None = None  # what a compaction's summary call cost
    call_output_tokens: int | None = None
    marker_id: str | None = None
    marker_event: str | None = None
    edit: int | None = None
    discarded: bool = False


class WarningEvent(WireEvent):
    """Something the user should know that did not stop the run."""

    type: Literal["warning"] = "warning"
    message: str
    reason: str | None = None
    message_id: str | None = None  # the row a ``reply_cut_off`` warning is about
    utilization: float | None = None
    head_fraction: float | None = None


class QueuedEvent(WireEvent):
    """A message waits: the thread is busy here, or a review holds it back."""

    type: Literal["queued"] = "queued"
    pending_id: str
    content: str


class AcceptedEvent(WireEvent):
    """The message the sender's browser called ``client_id`` is stored (once, whatever the
    number of sends); the browser may forget its copy."""

    type: Literal["accepted"] = "accepted"
    pending_id: str
    client_id: str


class HandoffEvent(WireEvent):
    """How a ``/handoff`` goes."""

    type: Literal["handoff"] = "handoff"
    status: HandoffStatus
    message: str


class CompactEvent(WireEvent):
    """How a "Compact now" ended."""

    type: Literal["compact"] = "compact"
    status: CompactStatus
    message: str


class ErrorEvent(WireEvent):
    """The run failed; ``message`` is redacted."""

    type: Literal["error"] = "error"
    message: str


class DoneEvent(WireEvent):
    """The run ended (``busy``: it did not start, the thread runs here already)."""

    type: Literal["done"] = "done"
    cancelled: bool = False
    busy: bool = False


Event = Annotated[
    TokenEvent
    | MessageEvent
    | UtilizationEvent
    | ResetEvent
    | MarkerEvent
    | WarningEvent
    | QueuedEvent
    | AcceptedEvent
    | HandoffEvent
    | CompactEvent
    | ErrorEvent
    | DoneEvent,
    Field(discriminator="type"),
]

_EVENT: TypeAdapter[Event] = TypeAdapter(Event)


def parse_event(wire: dict[str, Any]) -> Event:
    """The event of a stored or received ``{"type": ..., "data": {...}}``."""
    return _EVENT.validate_python(wire)


def reply_cut_off(*, message_id: str) -> WarningEvent:
    """The warning for a reply whose stream ended before the provider finished it; the
    stored message ``message_id`` keeps the text and has ``meta["incomplete"]``."""
    return WarningEvent(
        message="The reply was cut off: the provider ended the stream before finishing it. "
        "The text so far is kept; ask the agent to continue.",
        reason="reply_cut_off",
        message_id=message_id,
    )
