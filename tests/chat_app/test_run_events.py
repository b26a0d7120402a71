"""The translator turns engine events into UI events from what it is handed: it reads no
store (its fixture has none)."""

from __future__ import annotations

from datetime import UTC, datetime

from agent_core import HandoffArtifact, SessionRecord, StoredMessage
from agent_core.events import MessageEvent, ResetComplete, ResetFailed
from chat_app.services.presentation.run_events import FIRST_SEQ, Translator
from chat_app.services.presentation.ui_events import ItemShown, SessionOpened

_AT = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def _session(number: int) -> SessionRecord:
    return SessionRecord(id=f"s{number}", thread_id="t1", number=number, started_at=_AT)


def _row(seq: int, session: SessionRecord, role: str = "user") -> StoredMessage:
    return StoredMessage(
        id=f"m{seq}",
        thread_id="t1",
        session_id=session.id,
        seq=seq,
        role=role,
        content=f"message {seq}",
        created_at=_AT,
    )


def _completed(old: SessionRecord, new: SessionRecord, *delivered: StoredMessage) -> ResetComplete:
    return ResetComplete(
        old_session_id=old.id,
        new_session_id=new.id,
        session=new,
        session_number=new.number,
        trigger="auto",
        utilization=0.8,
        model="m",
        handoff=HandoffArtifact(
            session_number=old.number, trigger="auto", utilization=0.8, model="m"
        ),
        handoff_source="facts_only",
        handoff_tokens=0,
        handoff_input_tokens=0,
        review=False,
        delivered=list(delivered),
    )


def test_a_threads_first_row_comes_with_the_divider_of_the_session_it_opens() -> None:
    first = _session(1)
    events = Translator([first], "Baton").translate(MessageEvent.of(_row(FIRST_SEQ, first)))
    assert [(type(e), e.item.kind) for e in events if isinstance(e, ItemShown)] == [
        (ItemShown, "divider"),
        (ItemShown, "message"),
    ]
    assert len(events) == 2


def test_rows_after_a_reset_are_numbered_by_the_session_its_event_carries() -> None:
    first, second = _session(1), _session(2)
    translator = Translator([first], "Baton")
    reset = _completed(first, second, _row(7, second))
    [divider_event, delivered] = translator.translate(reset)
    assert isinstance(divider_event, SessionOpened)
    assert divider_event.chip.number == 2
    assert divider_event.divider.session_number == 2
    assert isinstance(delivered, ItemShown) and delivered.item.session_number == 2
    [reply] = translator.translate(MessageEvent.of(_row(8, second, role="assistant")))
    assert isinstance(reply, ItemShown)
    assert (reply.item.session_number, reply.item.model) == (2, "Baton")


def test_the_events_wire_shape_reads_back_as_the_same_event() -> None:
    """What the live channel sends (``model_dump()``) is read back whole on another worker."""
    from chat_app.services.presentation.ui_events import parse_ui_event

    first, second = _session(1), _session(2)
    translator = Translator([first], "Baton")
    reset = _completed(first, second, _row(7, second))
    events = [
        *translator.translate(MessageEvent.of(_row(FIRST_SEQ, first))),
        *translator.translate(reset),
        *translator.translate(ResetFailed(reason="no model")),
    ]
    wire = [event.model_dump() for event in events]
    assert [parse_ui_event(w) for w in wire] == events
    assert wire[-1] == {
        "type": "context_reset",
        "data": {"event": "reset_failed", "reason": "no model"},
    }
