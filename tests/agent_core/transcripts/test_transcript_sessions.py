"""An imported transcript cut at its own agent's compactions."""

from __future__ import annotations

import json
from pathlib import Path

from langchain_core.messages import AIMessage

from agent_core.transcripts import load_transcript, parse_transcript, split_sessions
from tests.agent_core.transcripts.test_codex_transcripts import rollout_records
from tests.agent_core.transcripts.test_transcripts import _CLAUDE_CODE_RECORDS
from tests.session_files import SUMMARY, claude_code_session


def test_claude_codes_boundary_and_summary_are_one_compaction_whose_summary_is_the_card() -> None:
    transcript = parse_transcript(claude_code_session(turns_before=3, turns_after=2), "s.jsonl")
    first, second = split_sessions(transcript)
    assert first.compaction is None and second.compaction is not None
    assert SUMMARY in second.compaction.summary
    assert second.compaction.trigger == "auto"
    assert second.compaction.tokens_before > second.compaction.tokens_after
    every = [m for s in (first, second) for m in s.messages]
    # Every message but the summary, in order, in exactly one session.
    assert len(every) == len(transcript.messages) - 1
    assert not any(SUMMARY in str(m.content) for m in every)
    assert transcript.messages[second.first_index] is second.messages[0]


def test_a_file_ending_right_after_its_compaction_keeps_the_compaction() -> None:
    text = "\n".join(json.dumps(r) for r in _CLAUDE_CODE_RECORDS) + "\n"
    sessions = split_sessions(parse_transcript(text, "s.jsonl"))
    assert [s.number for s in sessions] == [1, 2]
    assert sessions[1].messages == [] and "summary..." in sessions[1].compaction.summary
    assert sessions[1].compaction.tokens_before == 155000


def test_a_codex_compaction_opens_a_session_with_its_summary_and_token_counts(
    tmp_path: Path,
) -> None:
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rollout_records()) + "\n")
    transcript = load_transcript(path)
    sessions = split_sessions(transcript)
    assert len(sessions) == 2
    compaction = sessions[1].compaction
    assert compaction.summary == "Fixed date parsing in app/parse.py; tests pass."
    assert compaction.tokens_before and compaction.tokens_after
    assert not any(m.additional_kwargs.get("compact_summary") for s in sessions for m in s.messages)
    assert any(isinstance(m, AIMessage) for m in sessions[1].messages)
