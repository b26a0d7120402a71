"""Import a real pi session in the browser and replay it at pi's own compactions: at each of
its two cuts, pi's summary beside Baton's handoff with their tokens and probe figures, side
by side on a wide screen and one above the other on a phone."""

from __future__ import annotations

import re
from pathlib import Path

from tests.shared_data import eval_path

_FIGURES = re.compile(
    r"^[\d,]+ tokens · requests \d+/\d+, files \d+/\d+, commits \d+/\d+, task \d/\d$"
)


def test_a_pi_session_replayed_at_pis_compactions_shows_both_texts_per_cut(
    page, server_db, screenshot_dir: Path
) -> None:
    session = eval_path("real-sessions", "pi-mono", "before-compaction.jsonl")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto("/")
    page.locator("#import-session-open").click()
    page.locator("#import-session input[type=file]").set_input_files(str(session))
    page.wait_for_url("**/t/**", timeout=120_000)
    assert "Imported from pi · before-compaction.jsonl" in page.locator(
        "#imported-label"
    ).inner_text(timeout=60_000)

    action = page.locator("#replay-agent-cuts")
    assert action.inner_text() == "Replay at pi's compactions"
    action.click()
    dialog = page.locator("#agent-cuts")
    dialog.wait_for(timeout=120_000)
    # The dialog opens with an animation: measure the columns once it has settled.
    page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')")
    cuts = dialog.locator(".baton-agent-cut")
    assert cuts.count() == 2
    for number, (cut, tokens) in enumerate(
        zip(cuts.all(), ("175,004", "185,014"), strict=True), start=1
    ):
        text = cut.inner_text()
        assert f"Cut {number}: pi compacted after" in text and f"at {tokens} tokens" in text
        agent, baton = cut.locator(".baton-cut-agent"), cut.locator(".baton-cut-baton")
        assert "pi's summary" in agent.inner_text()
        assert "Baton's handoff" in baton.inner_text()
        for side in (agent, baton):
            assert _FIGURES.match(side.locator(".baton-cut-figures").inner_text())
        assert (
            agent.locator(".baton-cut-text")
            .inner_text()
            .startswith("# Context Checkpoint: Coding Agent Refactoring")
        )
        assert (
            baton.locator(".baton-cut-text").inner_text().startswith(f"# Handoff: session {number}")
        )
        left, right = agent.bounding_box(), baton.bounding_box()
        assert left and right and left["x"] + left["width"] <= right["x"] + 1  # side by side
        assert abs(left["y"] - right["y"]) < 2
    page.screenshot(path=str(screenshot_dir / "agent-cuts-1280.png"))

    page.set_viewport_size({"width": 390, "height": 844})
    first = cuts.first
    first.scroll_into_view_if_needed()
    top, bottom = (
        first.locator(".baton-cut-agent").bounding_box(),
        first.locator(".baton-cut-baton").bounding_box(),
    )
    assert top and bottom and bottom["y"] >= top["y"] + top["height"] - 1  # one above the other
    assert bottom["x"] + bottom["width"] <= 390  # nothing runs off a phone's screen
    page.screenshot(path=str(screenshot_dir / "agent-cuts-390.png"))
