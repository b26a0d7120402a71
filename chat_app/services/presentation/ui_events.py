"""What a chat page is told while a run goes on: one typed union, as the engine's events are.

The run services yield these (``run_events.Translator`` makes them of the engine's
:data:`agent_core.Event`; the services add their own refusals, titles and ends), the turn
process carries them to its web worker as they are, the live channel sends them to the
thread's other tabs in their wire shape (``model_dump()``: ``{"type": ..., "data": {...}}``)
and reads them back with :func:`parse_ui_event`, and the page's states handle them with one
``match``.

Where the engine's event already says what the page needs (streamed words, a handoff's or
a "Compact now"'s outcome, an accepted message, a warning, the end of a run), it is used as
it is; the rest carry the view models the page renders (``views``), built without a store
read.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    TypeAdapter,
    model_serializer,
    model_validator,
)

from agent_core import WireEvent
from agent_core.events import (
    AcceptedEvent,
    CompactEvent,
    ContextResetEvent,
    DoneEvent,
    HandoffEvent,
    InputBlocked,
    MarkerEvent,
    MarkerKind,
    ResetFailed,
    ResetStarting,
    TokenEvent,
    WarningEvent,
)
from chat_app.services.presentation.views import MeterView, SessionChip, TimelineItem

__all__ = [
    "ItemShown",
    "QueuedShown",
    "MeterShown",
    "MarkerShown",
    "SessionOpened",
    "ResetShown",
    "RowsReplaced",
    "TitleChanged",
    "RunChanged",
    "Resync",
    "TooLarge",
    "Refused",
    "UiEvent",
    "parse_ui_event",
    "RESYNC",
]


class _Wraps(BaseModel):
    """An event whose wire data is one view model: ``{"type": ..., "data": <the model>}``."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    wraps: ClassVar[str]  # the field that is the wire's data
    type: str

    @model_validator(mode="before")
    @classmethod
    def _from_wire(cls, value: Any) -> Any:
        if isinstance(value, dict) and set(value) == {"type", "data"}:
            return {"type": value["type"], cls.wraps: value["data"]}
        return value

    @model_serializer(mode="plain")
    def _to_wire(self) -> dict[str, Any]:
        wrapped: BaseModel = getattr(self, self.wraps)
        return {"type": self.type, "data": wrapped.model_dump(mode="json")}


class ItemShown(_Wraps):
    """A row to show (a message, a tool call, a divider, a marker), as a reload shows it."""

    wraps = "item"
    type: Literal["item"] = "item"
    item: TimelineItem


class QueuedShown(_Wraps):
    """A message that waits (the thread is busy, a reset or a review holds it back)."""

    wraps = "item"
    type: Literal["queued"] = "queued"
    item: TimelineItem


class MeterShown(_Wraps):
    """How full the context is, as the meter shows it."""

    wraps = "meter"
    type: Literal["utilization"] = "utilization"
    meter: MeterView


class MarkerShown(BaseModel):
    """A compaction, todo compression or mask: the engine's event and the marker row that
    stands for it (keyed by the stored row, as a reload keys it: undo and expand name it)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: MarkerKind
    marker: MarkerEvent
    item: TimelineItem

    @classmethod
    def of(cls, marker: MarkerEvent, item: TimelineItem) -> MarkerShown:
        return cls(type=marker.type, marker=marker, item=item)

    @model_validator(mode="before")
    @classmethod
    def _from_wire(cls, value: Any) -> Any:
        if isinstance(value, dict) and set(value) == {"type", "data"}:
            data = dict(value["data"])
            item = data.pop("item")
            marker = {"type": value["type"], "data": data}
            return {"type": value["type"], "marker": marker, "item": item}
        return value

    @model_serializer(mode="plain")
    def _to_wire(self) -> dict[str, Any]:
        wire = self.marker.model_dump()
        return {**wire, "data": {**wire["data"], "item": self.item.model_dump(mode="json")}}


class SessionOpened(ContextResetEvent):
    """A reset completed: the new session's divider and chip (the delivered messages follow
    as :class:`ItemShown`). The reset's other phases reach the page as the engine said them."""

    event: Literal["reset_complete"] = "reset_complete"
    divider: TimelineItem
    chip: SessionChip


def _phase(value: Any) -> str | None:
    if isinstance(value, dict):
        return value.get("event") or (value.get("data") or {}).get("event")
    return getattr(value, "event", None)


#: A reset's phase as the page is told it, told apart by ``event``.
ResetShown = Annotated[
    Annotated[ResetStarting, Tag("reset_starting")]
    | Annotated[InputBlocked, Tag("input_blocked")]
    | Annotated[SessionOpened, Tag("reset_complete")]
    | Annotated[ResetFailed, Tag("reset_failed")],
    Discriminator(_phase),
]


class RowsReplaced(WireEvent):
    """A regenerated reply's earlier rows (``seqs``), kept and marked replaced."""

    type: Literal["replaced"] = "replaced"
    seqs: list[int]


class TitleChanged(WireEvent):
    type: Literal["title"] = "title"
    title: str


class RunChanged(WireEvent):
    """A run of the thread started or ended (the live channel's, for the other tabs)."""

    type: Literal["run"] = "run"
    running: bool


class Resync(WireEvent):
    """The tab fell behind or the thread changed outside a run: read it again."""

    type: Literal["resync"] = "resync"


RESYNC = Resync()


class TooLarge(BaseModel):
    """Why a message did not fit; the chat offers to attach it as a file instead."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    size_bytes: int
    tokens: int | None
    room_tokens: int | None


class Refused(WireEvent):
    """The run failed or the message was refused; ``client_id`` names the sender's message
    (it stays in the composer), ``message`` is in plain words."""

    type: Literal["error"] = "error"
    message: str
    client_id: str | None = None
    too_large: TooLarge | None = None


UiEvent = Annotated[
    TokenEvent
    | ItemShown
    | QueuedShown
    | MeterShown
    | MarkerShown
    | ResetShown
    | RowsReplaced
    | TitleChanged
    | RunChanged
    | Resync
    | Refused
    | AcceptedEvent
    | HandoffEvent
    | CompactEvent
    | WarningEvent
    | DoneEvent,
    Field(discriminator="type"),
]

_UI_EVENT: TypeAdapter[UiEvent] = TypeAdapter(UiEvent)


def parse_ui_event(wire: dict[str, Any]) -> UiEvent:
    """The event of a received ``{"type": ..., "data": {...}}`` (the live channel's)."""
    return _UI_EVENT.validate_python(wire)
