"""The page's events: what the live channel sends (``model_dump()``) reads back as the same
event, for every kind the union holds, and the wire shape is the one the page always got."""

from __future__ import annotations

import typing

from agent_core.events import (
    AcceptedEvent,
    CompactEvent,
    DoneEvent,
    HandoffEvent,
    InputBlocked,
    MarkerEvent,
    ResetFailed,
    ResetStarting,
    TokenEvent,
    WarningEvent,
)
from chat_app.services.presentation import ui_events
from chat_app.services.presentation.ui_events import (
    ItemShown,
    MarkerShown,
    MeterShown,
    QueuedShown,
    Refused,
    Resync,
    RowsReplaced,
    RunChanged,
    SessionOpened,
    TitleChanged,
    TooLarge,
    parse_ui_event,
)
from chat_app.services.presentation.views import MeterView, SessionChip, TimelineItem

_ITEM = TimelineItem(key="m1", kind="message", role="user", content="Build a CSV parser")

ONE_OF_EACH = [
    TokenEvent(text="Sure"),
    ItemShown(item=_ITEM),
    QueuedShown(item=_ITEM.model_copy(update={"queued": True})),
    MeterShown(meter=MeterView(tokens=900, window=1000, fraction=0.9)),
    MarkerShown.of(
        MarkerEvent(type="masking", message="Masked 3 outputs", outputs=3, marker_id="r9"),
        TimelineItem(key="r9", kind="marker", role="event", content="Masked 3 outputs"),
    ),
    ResetStarting(
        session_id="s1", session_number=1, context_utilization=0.81, trigger="auto", threshold=0.8
    ),
    InputBlocked(reason="Context reset in progress"),
    SessionOpened(
        session_number=2,
        divider=TimelineItem(key="d2", kind="divider", session_number=2),
        chip=SessionChip(number=2, label="Session 2 ← current", anchor="session-2", current=True),
    ),
    ResetFailed(reason="Handoff cancelled", cancelled=True),
    RowsReplaced(seqs=[4, 5]),
    TitleChanged(title="CSV parser"),
    RunChanged(running=True),
    Resync(),
    Refused(
        message="Too long",
        client_id="c-1",
        too_large=TooLarge(size_bytes=9, tokens=7, room_tokens=3),
    ),
    AcceptedEvent(pending_id="p1", client_id="c-1"),
    HandoffEvent(status="done", message="Handed off"),
    CompactEvent(status="nothing", message="Nothing to compact"),
    WarningEvent(message="The reply was cut off", reason="reply_cut_off"),
    DoneEvent(cancelled=True),
]


def _members(union: object) -> set[type]:
    """The classes of a (nested, annotated) union."""
    if typing.get_origin(union) is typing.Annotated:
        return _members(typing.get_args(union)[0])
    if isinstance(union, type):
        return {union}
    return set().union(*(_members(member) for member in typing.get_args(union)))


def test_every_kind_of_page_event_reads_back_from_its_wire_shape() -> None:
    members = _members(ui_events.UiEvent)
    assert len(members) == len(ONE_OF_EACH)
    assert {type(event) for event in ONE_OF_EACH} == set(members)  # none left untested
    for event in ONE_OF_EACH:
        wire = event.model_dump()
        assert set(wire) == {"type", "data"}
        assert parse_ui_event(wire) == event


def test_the_wire_shape_is_what_the_page_was_sent_before_the_events_were_typed() -> None:
    assert DoneEvent().model_dump() == {"type": "done", "data": {}}
    assert Refused(message="This thread does not exist.").model_dump() == {
        "type": "error",
        "data": {"message": "This thread does not exist."},
    }
    assert TitleChanged(title="CSV").model_dump() == {"type": "title", "data": {"title": "CSV"}}
    marker = ONE_OF_EACH[4].model_dump()
    assert marker["type"] == "masking"
    assert (marker["data"]["outputs"], marker["data"]["item"]["key"]) == (3, "r9")
    assert ItemShown(item=_ITEM).model_dump()["data"] == _ITEM.model_dump(mode="json")
