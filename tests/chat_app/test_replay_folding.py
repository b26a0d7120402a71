"""A replay's event list folds the masks that changed nothing shown into one row."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from chat_app.services.conversation.threads.replays import (
    CompactionReplayed,
    MaskReplayed,
    ReplayEventView,
    ResetReplayed,
    fold_unchanged,
    replayed_events,
)


def _mask(index: int, at: float, unchanged: bool = True) -> ReplayEventView:
    return ReplayEventView(
        kind="mask", message_index=index, utilization=at, label=f"mask {index}", unchanged=unchanged
    )


def test_consecutive_unchanged_masks_are_one_row_and_the_others_stay() -> None:
    reset = ReplayEventView(kind="reset", message_index=40, utilization=0.8, label="reset")
    events = [_mask(9, 0.55), _mask(11, 0.55), _mask(14, 0.56), reset, _mask(50, 0.6, False)]
    folded = fold_unchanged(events)
    assert [e.label for e in folded] == [
        "3 masks after messages 10–15 changed nothing shown (at 55–56%)",
        "reset",
        "mask 50",
    ]


def test_a_lone_unchanged_mask_keeps_its_own_row() -> None:
    assert fold_unchanged([_mask(3, 0.4)]) == [_mask(3, 0.4)]


def test_stored_replay_events_read_back_typed_and_an_unknown_kind_is_refused() -> None:
    stored = [
        {
            "event": "mask",
            "message_index": 3,
            "utilization": 0.41,
            "basis": "exact",
            "utilization_after": 0.3,
            "outputs": 2,
            "tokens_before": 9,
            "tokens_after": 4,
        },
        {"event": "compaction", "message_index": 7, "utilization": 0.52, "messages_summarized": 5},
        {
            "event": "reset",
            "message_index": 9,
            "utilization": 0.81,
            "session_number": 2,
            "handoff": {"goal": "Ship it"},
        },
    ]
    mask, compaction, reset = replayed_events(stored)
    assert isinstance(mask, MaskReplayed) and (mask.outputs, mask.utilization_after) == (2, 0.3)
    assert isinstance(compaction, CompactionReplayed) and compaction.messages_summarized == 5
    assert isinstance(reset, ResetReplayed) and reset.handoff == {"goal": "Ship it"}
    with pytest.raises(ValidationError):
        replayed_events([{"event": "summary", "message_index": 1}])
