"""Typed events keep the wire and storage shape the plain dicts had."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from agent_core import HandoffArtifact, SessionRecord, StoredMessage, parse_event
from agent_core.events import (
    DoneEvent,
    InputBlocked,
    MarkerEvent,
    MessageEvent,
    ResetComplete,
    ResetFailed,
    ResetStarting,
    UtilizationEvent,
    WarningEvent,
    reply_cut_off,
)


def _row() -> StoredMessage:
    return StoredMessage(
        id="m1",
        thread_id="t1",
        session_id="s1",
        seq=3,
        role="assistant",
        content="Done.",
        created_at=datetime(2026, 12, 1, 9, 30, tzinfo=UTC),
    )


def test_an_event_dumps_as_type_and_data() -> None:
    event = UtilizationEvent(tokens=300, window=1000, basis="exact", session_number=2)
    assert event.model_dump() == {
        "type": "utilization",
        "data": {
            "tokens": 300,
            "window": 1000,
            "fraction": 0.3,
            "basis": "exact",
            "session_number": 2,
        },
    }


def test_a_field_not_given_is_not_sent() -> None:
    assert DoneEvent(cancelled=True).model_dump() == {"type": "done", "data": {"cancelled": True}}
    assert MarkerEvent(type="masking", message="Masked", edit=None).model_dump() == {
        "type": "masking",
        "data": {"message": "Masked", "edit": None},
    }


def test_a_reset_phase_says_only_its_own_fields_and_refuses_unknown_ones() -> None:
    event = ResetFailed(reason="Handoff cancelled", cancelled=True)
    assert event.model_dump() == {
        "type": "context_reset",
        "data": {"event": "reset_failed", "reason": "Handoff cancelled", "cancelled": True},
    }
    assert (event.reason, event.cancelled) == ("Handoff cancelled", True)
    assert parse_event(event.model_dump()) == event
    with pytest.raises(ValidationError):
        ResetFailed.model_validate({"reasons": "a typo is not carried along unseen"})
    with pytest.raises(ValidationError):  # a phase says its own fields only
        parse_event({"type": "context_reset", "data": {"event": "input_blocked", "trigger": "x"}})


def test_a_completed_resets_records_are_typed_and_go_out_as_json() -> None:
    row = _row()
    session = SessionRecord(id="s2", thread_id=row.thread_id, number=2, started_at=row.created_at)
    handoff = HandoffArtifact(
        session_number=1, trigger="auto", utilization=0.81, model="m", goal="Ship it"
    )
    event = ResetComplete(
        old_session_id="s1",
        new_session_id="s2",
        session=session,
        session_number=2,
        trigger="auto",
        utilization=0.81,
        model="m",
        handoff=handoff,
        handoff_source="facts_only",
        handoff_tokens=0,
        handoff_input_tokens=0,
        review=False,
        delivered=[row],
    )
    assert event.session == session and event.delivered == [row] and event.handoff == handoff
    data = event.model_dump()["data"]
    assert data["event"] == "reset_complete"
    assert data["session"] == session.model_dump(mode="json")
    assert data["delivered"] == [row.model_dump(mode="json")]
    assert data["handoff"] == handoff.model_dump(mode="json")
    assert parse_event(event.model_dump()) == event
    assert parse_event(event.model_dump(mode="json")) == event


def test_a_message_event_carries_its_row_as_json() -> None:
    row = _row()
    event = MessageEvent.of(row)
    assert event.model_dump() == {"type": "message", "data": row.model_dump(mode="json")}
    row.content = "changed after"
    assert event.row.content == "Done."  # the event is what was said then


@pytest.mark.parametrize(
    "event",
    [
        UtilizationEvent(tokens=5, window=0, basis="approximate"),
        MessageEvent.of(_row()),
        ResetStarting(
            session_id="s1",
            session_number=1,
            context_utilization=0.8,
            trigger="auto",
            threshold=0.8,
        ),
        InputBlocked(reason="Context reset in progress"),
        ResetFailed(reason="no model"),
        MarkerEvent(type="todo_compressed", message="Compressed", todo_id="a", marker_id="r9"),
        reply_cut_off(message_id="m1"),
    ],
)
def test_the_wire_shape_reads_back_as_the_same_event(event) -> None:
    assert parse_event(event.model_dump()) == event
    assert parse_event(event.model_dump(mode="json")) == event


def test_a_wire_event_of_no_known_type_is_refused() -> None:
    with pytest.raises(ValidationError):
        parse_event({"type": "owned", "data": {}})


def test_a_warning_is_matched_by_its_class() -> None:
    match parse_event({"type": "warning", "data": {"message": "Slow", "reason": "retry"}}):
        case WarningEvent(message=message, reason="retry"):
            assert message == "Slow"
        case other:
            pytest.fail(f"not a retry warning: {other!r}")
