"""The translator turns engine events into UI events from what it is handed: it reads no
store (its fixture has none)."""

from __future__ import annotations

from datetime import UTC, datetime

from agent_core import ContextResetEvent, MessageEvent, SessionRecord, StoredMessage
from chat_app.services.presentation.run_events import FIRST_SEQ, Translator, expand

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


def test_a_threads_first_row_comes_with_the_divider_of_the_session_it_opens() -> None:
    first = _session(1)
    events = Translator([first], "Baton").translate(MessageEvent.of(_row(FIRST_SEQ, first)))
    assert [(e["type"], e["data"]["kind"]) for e in events] == [
        ("item", "divider"),
        ("item", "message"),
    ]


def test_rows_after_a_reset_are_numbered_by_the_session_its_event_carries() -> None:
    first, second = _session(1), _session(2)
    translator = Translator([first], "Baton")
    reset = ContextResetEvent.of(
        "reset_complete",
        old_session_id=first.id,
        new_session_id=second.id,
        session=second.model_dump(mode="json"),
        session_number=2,
        delivered=[_row(7, second).model_dump(mode="json")],
    )
    [divider_event, delivered] = expand(translator.translate(reset))
    assert divider_event["data"]["chip"]["number"] == 2
    assert (delivered["type"], delivered["data"]["session_number"]) == ("item", 2)
    [reply] = translator.translate(MessageEvent.of(_row(8, second, role="assistant")))
    assert (reply["data"]["session_number"], reply["data"]["model"]) == (2, "Baton")
