"""The replay CLI on real transcripts: one JSON line per reset/compaction and a summary."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from scripts.swe_to_claude_code import convert
from tests.shared_data import REPO_ROOT, eval_path


def _cli(*args: str) -> list[dict]:
    done = subprocess.run([sys.executable, "-m", "agent_core", "replay", *args], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=120, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_aider_log_resets_with_calibrated_utilization_and_grounded_handoffs() -> None:
    log = eval_path("aider-chat-history", "chat-history.md")
    lines = _cli(str(log), "--model", "anthropic:claude-sonnet-4-5", "--window", "32000")
    summary = lines[-1]
    resets = [e for e in lines if e["event"] == "reset"]
    assert summary["event"] == "summary" and summary["format"] == "aider"
    assert summary["resets"] == len(resets) >= 5
    assert all(e["utilization"] >= 0.8 for e in resets)
    assert {e["basis"] for e in resets} >= {"calibrated"}
    assert all(e["handoff"]["current_state_summary"] for e in resets)
    worked = [e for e in resets if e["handoff"]["files_modified"] or e["handoff"]["completed_work"]]
    assert len(worked) >= 0.8 * len(resets)
    # A session with no edit or commit still hands on what was under way: the user's request.
    quiet = [e for e in resets if e not in worked and e["handoff"]["in_progress"]]
    assert quiet and all(e["handoff"]["in_progress"][0].startswith("The user's latest request: ")
                         for e in quiet)


def test_each_aider_handoff_lists_the_edits_of_its_own_session() -> None:
    # aider's applied edits are importer events; a handoff must list the files edited in the
    # session it closes, not those of the transcript's first messages.
    from agent_core.replay import replay
    from agent_core.transcripts import load_transcript

    log = eval_path("aider-chat-history", "chat-history.md")
    edits = [(e["message_index"], e["path"]) for e in load_transcript(log).metadata["events"]
             if e["kind"] == "applied_edit"]
    resets = [e for e in replay(str(log), model="anthropic:claude-sonnet-4-6", window=32000)
              if e["event"] == "reset"]
    assert len(resets) >= 20
    previous = -1
    for reset in resets:
        index = reset["message_index"]
        files = reset["handoff"]["files_modified"]
        listed = {f["path"] for f in files}
        inside = {path for at, path in edits if previous + 1 < at <= index}
        around = {path for at, path in edits if previous < at <= index + 1}
        assert inside <= listed, (index, inside - listed)
        from_events = {f["path"] for f in files if f["evidence"] == "aider applied edit"}
        assert from_events <= around, (index, from_events - around)
        previous = index


def test_opus_class_models_compact_instead_of_resetting() -> None:
    log = eval_path("aider-chat-history", "chat-history.md")
    summary = _cli(str(log), "--model", "anthropic:claude-opus-4-1", "--window", "32000")[-1]
    assert summary["compactions"] > 0


def test_claude_code_session_replays(tmp_path: Path) -> None:
    traj = next(eval_path("swe-agent-trajectories", "files", "trajectories", "demonstrations")
                .glob("*function_calling_replace__install-1/*.traj"))
    session = tmp_path / "session.jsonl"
    records = convert(json.loads(traj.read_text(encoding="utf-8")))
    session.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    lines = _cli(str(session), "--model", "anthropic:claude-sonnet-4-5", "--window", "6000")
    assert lines[-1]["format"] == "claude_code"
    reset = next(e for e in lines if e["event"] == "reset")
    assert reset["basis"] == "calibrated"
    assert "reproduce.py" in json.dumps(reset["handoff"]["files_modified"])


def test_a_malformed_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "broken.jsonl"
    bad.write_text('{"type": "user", "message": {"role": "user", "content": "hi"}}\n{oops\n')
    done = subprocess.run([sys.executable, "-m", "agent_core", "replay", str(bad), "--model", "gpt-4o"],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "broken.jsonl:2:" in done.stderr and "invalid JSON" in done.stderr
