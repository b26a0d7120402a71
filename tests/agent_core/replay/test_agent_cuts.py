"""Baton beside the agent's own summary at each of its compactions, and replays that say
something: the CLI, the report, and the figures, on real sessions."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent_core.errors import ConfigurationError
from agent_core.handoff import HandoffArtifact
from agent_core.replay import ReplayCompaction, ReplayEvent, ReplayMask, ReplayReset
from agent_core.replay._agent_cuts import cuts_at_agent_compactions
from agent_core.replay._report import generations, render_report
from agent_core.replay._run import replay
from agent_core.transcripts import load_transcript
from tests.shared_data import REPO_ROOT, eval_path

_PI = ("real-sessions", "pi-mono", "before-compaction.jsonl")


@pytest.fixture(scope="module")
def pi_cuts():
    transcript = load_transcript(eval_path(*_PI))
    return transcript, cuts_at_agent_compactions(transcript, model="anthropic:claude-opus-4-5")


def test_each_of_pis_compactions_gets_both_texts_and_their_figures(pi_cuts) -> None:
    transcript, cuts = pi_cuts
    assert [c.agent for c in cuts] == ["pi", "pi"]
    assert [c.tokens_before for c in cuts] == [175_004, 185_014]
    for cut, compaction in zip(cuts, transcript.compactions, strict=True):
        assert cut.agent_summary == compaction.summary
        assert cut.agent_summary.startswith("# Context Checkpoint")
        assert "## Goal" in cut.baton_handoff or "Goal" in cut.baton_handoff
        assert 0 < cut.agent_tokens < 2_000 and 0 < cut.baton_tokens <= 2_000
        # The same probes, from the raw messages before the cut, scored on both texts.
        assert [p.kind for p in cut.agent_probes] == ["requests", "files", "commits", "task"]
        assert [p.total for p in cut.agent_probes] == [p.total for p in cut.baton_probes]
        assert all(p.total > 0 for p in cut.agent_probes)
        # Cut where pi's summary ends: both texts cover the same messages, and what pi
        # kept whole goes on into the next session on both sides.
        summarized = transcript.messages[: compaction.summarized_until]
        assert cut.messages_before == sum(
            not m.additional_kwargs.get("compact_summary") for m in summarized
        )
    # The second cut comes after more of the session: at least as many probes.
    first, second = cuts
    assert second.messages_before > first.messages_before
    assert second.agent_probes[0].total > first.agent_probes[0].total


def test_a_probe_counts_only_when_the_text_holds_it(pi_cuts) -> None:
    _, cuts = pi_cuts
    cut = cuts[0]
    commits = next(p for p in cut.agent_probes if p.kind == "commits")
    for sha in commits.missing:
        assert sha not in cut.agent_summary.lower()
    held = next(p for p in cut.baton_probes if p.kind == "commits")
    # At most three missing items are named; each is truly absent from the handoff.
    assert len(held.missing) == min(3, held.total - held.held)
    for sha in held.missing:
        assert sha not in cut.baton_handoff.lower()


def _at_agent_compactions(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent_core", "replay", str(path), "--model"]
        + ["anthropic:claude-opus-4-5", "--at-agent-compactions", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_cli_prints_each_cut_and_writes_them_side_by_side(tmp_path: Path) -> None:
    report = tmp_path / "cuts.html"
    done = _at_agent_compactions(eval_path(*_PI), "--report", str(report))
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["event"] for line in lines] == ["agent_cut", "agent_cut"]
    assert {"agent_summary", "baton_handoff", "agent_tokens", "baton_tokens"} <= set(lines[0])
    html = report.read_text(encoding="utf-8")
    assert "Baton beside pi's own summaries (2 cuts)" in html
    assert html.count('class="card compaction agent-cut"') == 2
    assert "pi's summary" in html and "Baton's handoff" in html


def test_a_session_without_compactions_says_so(tmp_path: Path) -> None:
    done = _at_agent_compactions(eval_path("real-sessions", "agentlogs", "pi", "crud.jsonl"))
    assert done.returncode == 2
    assert "pi made no compaction of its own in this file" in done.stderr


def test_a_window_too_small_for_the_session_is_said_with_one_that_fits() -> None:
    # aider's log at 6,000 tokens: every reset opened a session already past its threshold
    # (hundreds of resets at 200-350%); the replay stops and names a window instead.
    log = eval_path("aider-chat-history", "chat-history.md")
    with pytest.raises(
        ConfigurationError, match=r"of a 6,000-token window.*window of at least [\d,]+ tokens\.$"
    ) as caught:
        list(replay(str(log), model="anthropic:claude-sonnet-4-5", window=6000))
    assert len(str(caught.value)) <= 300  # the app shows an error's first 300 characters


def test_the_report_gives_each_generation_against_the_first() -> None:
    def reset(index: int, timestamp: str, tokens: int) -> ReplayReset:
        handoff = HandoffArtifact(session_number=1, trigger="auto", utilization=0.8, model="m")
        return ReplayReset(
            message_index=index,
            timestamp=timestamp,
            utilization=0.8,
            basis="exact",
            session_number=2,
            handoff_tokens=tokens,
            handoff=handoff,
        )

    events: list[ReplayEvent] = [
        ReplayMask(
            message_index=5,
            session_number=1,
            utilization=0.4,
            basis="exact",
            utilization_after=0.3,
            outputs=2,
            tokens_before=900,
            tokens_after=600,
        ),
        reset(10, "2025-01-01T10:00:00Z", 400),
        ReplayCompaction(
            message_index=25,
            timestamp="2025-01-01T10:22:00Z",
            session_number=2,
            utilization=0.5,
            basis="exact",
            messages_summarized=8,
            tokens_after=300,
        ),
        reset(40, "2025-01-01T10:52:30Z", 920),
    ]
    rows = generations(events)
    assert [(r["kind"], r["messages"], r["minutes"]) for r in rows] == [
        ("reset", 11, None),
        ("compaction", 15, 22.0),
        ("reset", 15, 30.5),
    ]
    assert [r["against_first"] for r in rows] == [1.0, None, 2.3]
    html = render_report("x.jsonl", [], events)
    assert "<h2>Generations</h2>" in html and "<td>2.3</td>" in html
