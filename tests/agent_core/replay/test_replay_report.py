"""The replay report page: autoescaped templates, so nothing from a transcript becomes markup."""

from __future__ import annotations

from agent_core.replay._report import render_report
from agent_core.replay._run import ReplayStep

HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def _page() -> str:
    steps = [
        ReplayStep(message_index=i, total=30, tokens=150 * i, window=4000, session=1)
        for i in range(30)
    ]
    events = [
        {"event": "summary", "format": "openai", "messages": 30, "model": HOSTILE, "resets": 1},
        {
            "event": "reset",
            "message_index": 25,
            "utilization": 0.81,
            "basis": "exact",
            "session_number": 2,
            "handoff": {
                "goal": HOSTILE,
                "files_modified": [{"path": HOSTILE}],
                "key_decisions": [HOSTILE] * 10,
            },
        },
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
