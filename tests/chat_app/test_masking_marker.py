"""A mask becomes a marker row on the timeline, like a compaction."""

from __future__ import annotations

import pytest

from agent_core.events import MarkerEvent
from chat_app.services.presentation.ui_events import MarkerShown


@pytest.fixture
def translator():
    from chat_app.services.presentation import run_events

    return run_events.Translator([], "Baton")


def test_a_masking_event_becomes_a_marker_item(translator) -> None:
    note = "Masked 37 old tool outputs (41,200 → 1,900 tokens)"
    [out] = translator.translate(
        MarkerEvent(
            type="masking",
            message=note,
            tokens_before=41_200,
            tokens_after=1_900,
            outputs=37,
            session_number=2,
        )
    )
    assert isinstance(out, MarkerShown) and out.type == "masking"
    assert out.item.kind == "marker"
    assert out.item.content == note
    assert out.item.session_number == 2
    assert out.model_dump()["data"]["outputs"] == 37  # the engine's figures ride along


def test_a_live_marker_is_keyed_like_the_stored_row_a_reload_shows(translator) -> None:
    [out] = translator.translate(
        MarkerEvent(
            type="compaction",
            message="Compacted 7 earlier messages",
            session_number=1,
            marker_id="row-9",
            edit=2,
        )
    )
    assert isinstance(out, MarkerShown)
    item = out.item
    assert (item.key, item.marker_event, item.edit) == ("row-9", "compaction", 2)
