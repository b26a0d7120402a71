"""``replay --report`` on aider's real log: the page opens offline in chromium with the chart
drawn, a mark per reset, and a card per handoff."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.shared_data import REPO_ROOT, eval_path


def test_the_aider_report_opens_with_its_chart_drawn(
    browser, tmp_path: Path, screenshot_dir: Path
) -> None:
    log = eval_path("aider-chat-history", "chat-history.md")
    report = tmp_path / "aider.html"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent_core",
            "replay",
            str(log),
            "--model",
            "anthropic:claude-sonnet-4-5",
            "--window",
            "60000",
            "--report",
            str(report),
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=240,
        check=True,
    )
    resets = [e for e in map(json.loads, done.stdout.splitlines()) if e["event"] == "reset"]
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    fetched: list[str] = []
    context.route(
        "**/*",
        lambda route: (
            (fetched.append(route.request.url), route.continue_())
            if not route.request.url.startswith("file:")
            else route.continue_()
        ),
    )
    page = context.new_page()
    page.goto(report.as_uri())
    path = page.locator("svg.chart path.tokens")
    assert path.count() == 1
    # The line really is drawn: it spans the plot, it is not an empty or zero-width path.
    box = path.bounding_box()
    assert box is not None and box["width"] > 800 and box["height"] > 100
    assert page.locator("svg.chart line.mark.reset").count() == len(resets) >= 5
    assert page.locator("section.card.reset").count() == len(resets)
    assert fetched == []
    page.screenshot(path=str(screenshot_dir / "replay-report-aider.png"), full_page=False)
    context.close()
