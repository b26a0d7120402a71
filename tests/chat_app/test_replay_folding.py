"""A replay's event list folds the masks that changed nothing shown into one row."""

from __future__ import annotations

from chat_app.services.conversation.replays import ReplayEventView, fold_unchanged


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
