"""The replay report page: autoescaped templates, so nothing from a transcript becomes markup."""

from __future__ import annotations

from agent_core.handoff import FileChange, HandoffArtifact
from agent_core.replay import ReplayEvent, ReplayReset, ReplaySummary
from agent_core.replay._report import render_report
from agent_core.replay._run import ReplayStep

HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def _page() -> str:
    steps = [
        ReplayStep(message_index=i, total=30, tokens=150 * i, window=4000, session=1)
        for i in range(30)
    ]
    handoff = HandoffArtifact(
        session_number=1,
        trigger="auto",
        utilization=0.81,
        model="gpt-4o",
        goal=HOSTILE,
        files_modified=[FileChange(path=HOSTILE, verified=True)],
        key_decisions=[HOSTILE] * 10,
    )
    events: list[ReplayEvent] = [
        ReplayReset(
            message_index=25,
            utilization=0.81,
            basis="exact",
            session_number=2,
            handoff_tokens=120,
            handoff=handoff,
        ),
        ReplaySummary(
            format="openai",
            messages=30,
            usage_points=0,
            model=HOSTILE,
            window=4000,
            strategy="reset",
            resets=1,
            compactions=0,
            sessions=2,
            final_utilization=0.2,
            seconds=0.1,
        ),
    ]
    return render_report(HOSTILE, steps, events)


def test_text_from_a_transcript_or_handoff_is_escaped_everywhere() -> None:
    page = _page()
    assert "<script" not in page and "<img" not in page
    assert page.count("&lt;script&gt;") >= 5  # title, heading, model, goal, file, decisions


def test_the_page_shows_the_reset_card_with_its_lists_capped() -> None:
    page = _page()
    assert page.startswith("<!doctype html>")
    assert page.count('class="card reset"') == 1 and page.count('class="mark reset"') == 1
    assert "Session 1 → 2: reset at message 25 (81%, exact)" in page
    assert "… 2 more" in page  # ten decisions, eight shown
