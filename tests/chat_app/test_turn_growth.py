"""The warn notice's look ahead: where the next turn will likely take the context."""

from __future__ import annotations

import pytest

from agent_core.storage import RowMark
from agent_core.strategies import CONTEXT_META
from chat_app.services.conversation.runs.turn_growth import has_older_part, next_turn_peak


def _reply(seq: int, fraction: float) -> RowMark:
    return RowMark(seq, "assistant", {CONTEXT_META: {"fraction": fraction}})


def test_no_turn_yet_tells_nothing() -> None:
    assert next_turn_peak([], []) is None
    assert next_turn_peak([RowMark(2, "event", {"event": "defer"})], [1]) is None


def test_one_turn_predicts_its_own_growth_again() -> None:
    marks = [_reply(2, 0.10), _reply(4, 0.25), _reply(6, 0.40)]
    assert next_turn_peak(marks, [1]) == pytest.approx(0.70)


def test_several_turns_predict_the_average_growth_of_their_peaks() -> None:
    # Peaks 0.30, 0.45, 0.60 (one turn's calls after each user message): +0.15 a turn.
    marks = [
        _reply(2, 0.20),
        _reply(3, 0.30),
        _reply(5, 0.40),
        _reply(6, 0.45),
        _reply(8, 0.55),
        _reply(9, 0.60),
        RowMark(10, "event", {"event": "defer"}),
    ]
    assert next_turn_peak(marks, [1, 4, 7]) == pytest.approx(0.75)


def test_a_shrinking_context_predicts_no_growth() -> None:
    marks = [_reply(2, 0.60), _reply(4, 0.40)]
    assert next_turn_peak(marks, [1, 3]) == pytest.approx(0.40)


def _call(seq: int, tokens: int) -> RowMark:
    return RowMark(seq, "assistant", {CONTEXT_META: {"tokens": tokens, "fraction": tokens / 6000}})


def test_an_older_part_is_there_only_past_what_a_compaction_keeps() -> None:
    assert not has_older_part([], 2000)  # a fresh session: nothing to compact
    assert not has_older_part([_call(2, 900), _call(4, 2500)], 2000)  # the recent part is all
    assert has_older_part([_call(2, 900), _call(4, 2500), _call(6, 3200)], 2000)
