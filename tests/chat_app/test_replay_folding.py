"""A replay's event list folds the masks that changed nothing shown into one row; a stored
run's events read back as the engine's types."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agent_core.replay import ReplayCompaction, ReplayMask, ReplayReset
from chat_app.services.conversation.threads.replays import (
    ReplayEventView,
    fold_unchanged,
    stored_events,
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


def test_stored_replay_events_read_back_typed_and_a_summary_among_them_is_refused() -> None:
    handoff = {"session_number": 1, "trigger": "auto", "utilization": 0.81, "model": "m"}
    stored = [
        {
            "event": "mask",
            "message_index": 3,
            "session_number": 1,
            "utilization": 0.41,
            "basis": "exact",
            "utilization_after": 0.3,
            "outputs": 2,
            "tokens_before": 9,
            "tokens_after": 4,
        },
        {
            "event": "compaction",
            "message_index": 7,
            "utilization": 0.52,
            "basis": "calibrated",
            "messages_summarized": 5,
            "tokens_after": 300,
        },
        {
            "event": "reset",
            "message_index": 9,
            "utilization": 0.81,
            "basis": "exact",
            "session_number": 2,
            "handoff": {**handoff, "goal": "Ship it"},
        },
    ]
    mask, compaction, reset = stored_events(stored)
    assert isinstance(mask, ReplayMask) and (mask.outputs, mask.utilization_after) == (2, 0.3)
    assert isinstance(compaction, ReplayCompaction) and compaction.messages_summarized == 5
    assert isinstance(reset, ReplayReset) and reset.handoff.goal == "Ship it"
    summary = {
        "event": "summary",
        "format": "openai",
        "messages": 2,
        "usage_points": 0,
        "model": "m",
        "window": 4000,
        "strategy": "reset",
        "resets": 0,
        "compactions": 0,
        "sessions": 1,
        "final_utilization": 0.1,
        "seconds": 0.1,
    }
    with pytest.raises(ValidationError):
        stored_events([summary])
