"""Import a Claude Code session in the browser, read its own compaction, replay it with a
tight reset policy and see both runs on one chart, with Baton's masks and resets marked; then
replay it with the default assistant, on the window its chats get, which is too small for it:
the replay says so."""

from __future__ import annotations

import re
from pathlib import Path

from chat_app.root import root
from tests.session_files import SUMMARY, claude_code_session


def _assistant(name: str, **settings) -> str:
    from sqlmodel import Session

    from chat_app.db import repo
    from chat_app.db.engine import write_engine
    from chat_app.db.models import AssistantCreate

    with Session(write_engine(root().engine)) as db:
        assistant = repo.create_assistant(
            session=db, data=AssistantCreate(name=name, model="simulator", **settings)
        )
        return assistant.name


def test_import_read_the_original_compaction_then_replay_and_chart_both_runs(
    page, server_db, tmp_path: Path, screenshot_dir: Path
) -> None:
    name = _assistant(
        "Tight resets",
        context_strategy="reset",
        reset_threshold=0.8,
        compact_threshold=0.5,
        window_override=14000,
    )
    # No window of its own: its chats run on the simulator's window, which the test server
    # sets to 6,000 tokens (BATON_SIM_WINDOW).
    plain = _assistant("Simulator defaults")
    session_file = tmp_path / "session.jsonl"
    session_file.write_text(claude_code_session())
    page.goto("/")
    page.locator("#import-session-open").click()
    page.locator("#import-session input[type=file]").set_input_files(str(session_file))
    page.wait_for_url("**/t/**")

    # The original agent's compaction is a divider whose card is the summary it wrote.
    divider = page.locator(".baton-divider[data-session='2']")
    divider.wait_for()
    header = divider.locator(".baton-divider-label").inner_text()
    assert "Claude Code compacted (auto) at" in header and "→" in header
    divider.locator(".baton-handoff-summary").click()
    assert "Summary by Claude Code" in divider.inner_text()
    assert SUMMARY in divider.inner_text()
    # A read-only record: no composer, the source named.
    assert page.locator("#composer-input").count() == 0
    assert page.locator("#context-meter").count() == 0
    assert (
        "Imported from Claude Code · session.jsonl" in page.locator("#imported-label").inner_text()
    )

    page.locator("#replay-assistant").click()
    page.get_by_role("option", name=f"{name} · Offline simulator").click()
    page.locator("#replay-start").click()
    results = page.locator("#replay-results")
    results.wait_for(timeout=120_000)
    chips = results.locator(".baton-replay-run").all_inner_texts()
    assert len(chips) == 1 and "Tight resets" in chips[0]
    assert "mask at 35%, reset at 80%, 14,000-token window" in chips[0]
    masks = int(re.search(r"(\d+) masks, ", chips[0]).group(1))
    resets = int(re.search(r"(\d+) resets, ", chips[0]).group(1))
    assert resets >= 2 and masks >= 2
    # Both runs drawn as lines, a mark per Baton reset and one for the original compaction.
    # (The chart's library arrives when the chart is first drawn: wait for its lines.)
    drawn = results.locator("#replay-chart .recharts-line-curve:not([stroke-width='0'])")
    drawn.nth(1).wait_for()
    assert drawn.count() == 2
    for curve in drawn.all():
        box = curve.bounding_box()
        assert box is not None and box["width"] > 200
    # A dot per Baton mask and reset, and one for the original's compaction.
    assert results.locator("#replay-chart .recharts-line-dot").count() == masks + resets + 1
    events = results.locator(".baton-replay-event")
    assert events.count() == masks + resets
    labels = events.all_inner_texts()
    assert sum(text.startswith("Mask at ") for text in labels) == masks
    assert labels[0].startswith("Mask at ")  # the app masks before it resets
    page.screenshot(path=str(screenshot_dir / "import-replay-chart.png"))
    results.get_by_role("button", name="Close").click()

    # An assistant with no window of its own replays on the window its chats get (the test
    # server's 6,000 tokens), not the imported model's 200,000. There its prompt, tools and a
    # handoff already pass the reset point, so rather than resetting at every message the
    # replay says so and names a window that fits; nothing is stored.
    page.locator("#replay-assistant").click()
    page.get_by_role("option", name=f"{plain} · Offline simulator").click()
    page.locator("#replay-start").click()
    refusal = page.get_by_text(re.compile(r"The replay failed: .* of a 6,000-token window"))
    refusal.wait_for(timeout=120_000)
    assert re.search(r"Replay with a window of at least [\d,]+ tokens", refusal.inner_text())
    page.locator("#replay-show").click()
    results.locator(".baton-replay-run").first.wait_for()  # the dialog opens, then counts
    assert results.locator(".baton-replay-run").count() == 1
    results.get_by_role("button", name="Close").click()

    # A reload keeps the run; the chart opens again from the dock.
    page.reload()
    page.locator("#replay-show").click()
    page.locator("#replay-results .recharts-line-curve").nth(1).wait_for()
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(screenshot_dir / "import-replay-chart-390.png"))
