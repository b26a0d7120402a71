"""A replay's events are typed where they are made; as JSON they keep the shape the command
line has always printed and the app has always stored, and runs stored by older versions
read back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from agent_core.replay import (
    ReplayCompaction,
    ReplayEvent,
    ReplayMask,
    ReplayReset,
    ReplaySummary,
    parse_replay_event,
    replay_transcript,
)
from agent_core.replay._run import replay_policy
from agent_core.transcripts import load_transcript
from tests.agent_core.replay.test_replay import _thread

_DATA = Path(__file__).resolve().parent.parent / "data"

#: The keys of each kind, in the order the command line printed them before events were typed.
_KEYS = {
    "mask": [
        "event",
        "message_index",
        "session_number",
        "utilization",
        "basis",
        "utilization_after",
        "outputs",
        "tokens_before",
        "tokens_after",
    ],
    "compaction": [
        "event",
        "message_index",
        "timestamp",
        "session_number",
        "utilization",
        "basis",
        "messages_summarized",
        "tokens_after",
    ],
    "reset": [
        "event",
        "message_index",
        "timestamp",
        "utilization",
        "basis",
        "session_number",
        "handoff_tokens",
        "handoff",
    ],
    "summary": [
        "event",
        "format",
        "messages",
        "usage_points",
        "model",
        "window",
        "strategy",
        "effective_strategy",
        "mask_threshold",
        "compact_threshold",
        "reset_threshold",
        "masks",
        "resets",
        "compactions",
        "sessions",
        "final_utilization",
        "oversized_messages",
        "skipped",
        "seconds",
    ],
}


def _replayed(tmp_path: Path, strategy: str) -> list[ReplayEvent]:
    path = tmp_path / f"{strategy}.json"
    path.write_text(json.dumps(_thread([f"request {n}" for n in range(6)])), encoding="utf-8")
    policy = replay_policy(strategy=strategy, window=8000, keep_recent_tokens=800)
    return list(
        replay_transcript(load_transcript(path), model="anthropic:claude-sonnet-4-5", policy=policy)
    )


def test_every_kind_is_json_in_the_shape_it_always_had_and_reads_back_the_same(
    tmp_path: Path,
) -> None:
    events = _replayed(tmp_path, "reset") + _replayed(tmp_path, "compact")
    assert {type(e) for e in events} == {ReplayMask, ReplayCompaction, ReplayReset, ReplaySummary}
    for event in events:
        stored = json.loads(json.dumps(event.model_dump(mode="json")))
        assert list(stored) == _KEYS[event.event]
        back = parse_replay_event(stored)
        assert type(back) is type(event) and back.model_dump(mode="json") == stored
    reset = next(e for e in events if isinstance(e, ReplayReset))
    assert reset.handoff.session_number == reset.session_number - 1


@pytest.mark.parametrize("day", ["2026-12-01", "2026-12-04"])
def test_runs_stored_by_an_older_version_read_back_typed(day: str) -> None:
    # Rows the app stored then (written by that version's replay of one session, with a
    # reset and with a compact policy); keys added since read as absent, not as a figure.
    runs = json.loads((_DATA / f"replay_runs_{day}.json").read_text(encoding="utf-8"))
    for run in runs:
        events = [parse_replay_event(e) for e in run["events"]]
        summary = parse_replay_event(run["summary"])
        assert isinstance(summary, ReplaySummary)
        assert summary.oversized_messages == [] and summary.skipped == ""
        resets = [e for e in events if isinstance(e, ReplayReset)]
        compactions = [e for e in events if isinstance(e, ReplayCompaction)]
        masks = [e for e in events if isinstance(e, ReplayMask)]
        assert (len(resets), len(compactions)) == (summary.resets, summary.compactions)
        assert resets or compactions
        assert all(r.handoff_tokens is None and r.timestamp is None for r in resets)
        assert all(r.handoff.session_number == r.session_number - 1 for r in resets)
        assert all(c.timestamp is None for c in compactions)
        if day == "2026-12-01":
            # Before masking was replayed: no masks, no mask threshold, no compaction's session.
            assert masks == [] and summary.masks == 0 and summary.mask_threshold is None
            assert summary.effective_strategy is None and summary.reset_threshold is None
            assert all(c.session_number is None for c in compactions)
        else:
            assert masks and summary.masks == len(masks) and summary.mask_threshold == 0.35
            assert all(c.session_number == 1 for c in compactions)


def test_a_key_no_field_names_or_an_unknown_kind_is_refused() -> None:
    mask = {
        "event": "mask",
        "message_index": 3,
        "session_number": 1,
        "utilization": 0.41,
        "basis": "exact",
        "utilization_after": 0.3,
        "outputs": 2,
        "tokens_before": 9,
        "tokens_after": 4,
    }
    assert isinstance(parse_replay_event(mask), ReplayMask)
    with pytest.raises(ValidationError):
        parse_replay_event({**mask, "colour": "red"})
    with pytest.raises(ValidationError):
        parse_replay_event({**mask, "event": "agent_cut"})
