"""How far the next turn will likely take the context, from how the last turns grew it: the
warn notice shows while the chat is idle when the next turn would cross the threshold at
which the engine acts by itself, not only mid-turn when nothing can be done any more.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from agent_core.storage import RowMark
from agent_core.strategies import CONTEXT_META

__all__ = ["TURNS_LOOKED_AT", "has_older_part", "next_turn_peak"]

#: How many of the last turns' growth the prediction averages.
TURNS_LOOKED_AT = 3


def _turn_samples(marks: Sequence[RowMark], user_seqs: Sequence[int]) -> list[list[float]]:
    """The utilization of each model call, grouped by the turn (user message) it served."""
    starts = sorted(user_seqs)
    turns: dict[int, list[float]] = {}
    for mark in marks:
        sample = mark.meta.get(CONTEXT_META) if mark.role == "assistant" else None
        if not isinstance(sample, dict) or "fraction" not in sample:
            continue
        turn = bisect.bisect_left(starts, mark.seq)  # user messages before it
        turns.setdefault(turn, []).append(float(sample["fraction"]))
    return [turns[turn] for turn in sorted(turns)]


def next_turn_peak(marks: Sequence[RowMark], user_seqs: Sequence[int]) -> float | None:
    """The utilization the next turn will likely reach at its last model call: the last
    turn's peak plus the average growth of the peaks of the last turns (with one turn, the
    growth within it). None before any turn."""
    turns = _turn_samples(marks, user_seqs)
    if not turns:
        return None
    peaks = [max(samples) for samples in turns]
    recent = peaks[-(TURNS_LOOKED_AT + 1) :]
    if len(recent) >= 2:
        growth = (recent[-1] - recent[0]) / (len(recent) - 1)
    else:
        growth = max(turns[-1]) - turns[-1][0]
    return peaks[-1] + max(growth, 0.0)


def has_older_part(marks: Sequence[RowMark], keep_recent_tokens: int) -> bool:
    """Whether a compaction would find anything to summarize: the session grew past its
    opening (the first model call's context: the handoff, pinned files, the first request)
    by more than the recent part a compaction keeps. "Compact now" is offered only then."""
    tokens = [
        int(sample["tokens"])
        for mark in marks
        if mark.role == "assistant"
        and isinstance(sample := mark.meta.get(CONTEXT_META), dict)
        and "tokens" in sample
    ]
    return bool(tokens) and tokens[-1] - tokens[0] > keep_recent_tokens
