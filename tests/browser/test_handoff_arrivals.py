"""A message sent from a second tab while ``/handoff`` runs lands in the new session and is
answered there, once: in both tabs live, and after a reload.

The handoff must outlast what the test does meanwhile (the second tab types and sends), so
this module is served by the slow simulator's server (``slow_app_server``): its handoff
"writes" for several seconds at that pace.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.browser.app_server import AppServer
from tests.browser.chat_page import (
    activity,
    submit,
    timeline,
    user_messages,
    wait_idle,
    wait_interactive,
)
from tests.browser.conftest import answered_here

TASK = "Write a config parser with tests"
LATE = "Also handle semicolons as separators"
# The simulator's words when it has done a follow-up's todo: once per answer to LATE.
ANSWERED = f"Finished: Follow up: {LATE}"


@pytest.fixture(scope="module")
def app_server(slow_app_server: AppServer) -> AppServer:
    return slow_app_server


def _answers(page) -> int:
    return page.evaluate(
        "(text) => [...document.querySelectorAll('[data-role=assistant] .baton-markdown')]"
        ".filter(e => e.innerText.includes(text)).length",
        ANSWERED,
    )


def _dividers(page) -> list[str]:
    return [text for kind, text in timeline(page) if kind == "divider"]


def _late_after_divider(page, number: str) -> bool:
    rows = timeline(page)
    return ("divider", number) in rows and rows.index(("user", LATE)) > rows.index(
        ("divider", number)
    )


def _reloaded(page) -> None:
    page.reload()
    page.locator("#timeline .baton-item").first.wait_for()
    wait_idle(page)


def _open_answered(context, path: str):
    tab = context.new_page()
    tab.goto(path)
    wait_interactive(tab)
    tab.locator("[data-role=assistant]").last.wait_for()
    wait_idle(tab)
    return tab


def test_a_second_tab_sends_during_handoff_and_is_answered_once(
    owned, app, screenshot_dir: Path
) -> None:
    # The task's answer, a whole plan (about 20 s at this pace), is run by this process at
    # once: what the test looks at is the handoff after it.
    context, owner = owned
    path = f"/t/{answered_here(app, owner, TASK)}"
    page = _open_answered(context, path)
    other = _open_answered(context, path)
    sessions_before = len(_dividers(page)) or 1

    submit(page, "/handoff")
    page.wait_for_function(
        "() => document.querySelector('.baton-composer')?.getAttribute('data-activity')"
        " === 'handoff'",
        timeout=30_000,
    )
    # The second tab sees the handoff running and sends while it does.
    other.wait_for_function("() => document.getElementById('stop-button')", timeout=30_000)
    assert activity(page) == "handoff"
    submit(other, LATE)
    assert activity(page) == "handoff", "the handoff was over before the message was sent"

    new_session = str(sessions_before + 1)
    for tab in (page, other):
        tab.wait_for_function(
            "(text) => [...document.querySelectorAll('[data-role=assistant] .baton-markdown')]"
            ".some(e => e.innerText.includes(text))",
            arg=ANSWERED,
            timeout=180_000,
        )
        wait_idle(tab)
    page.screenshot(path=str(screenshot_dir / "handoff-arrival-answered.png"), full_page=True)
    for tab in (page, other):
        assert user_messages(tab).count(LATE) == 1
        assert _late_after_divider(tab, new_session)  # delivered into the new session
        assert _answers(tab) == 1
    for tab in (page, other):
        _reloaded(tab)
        assert user_messages(tab).count(LATE) == 1
        assert _late_after_divider(tab, new_session)
        assert _answers(tab) == 1
        assert not tab.locator("[data-queued=true]").count()
    other.screenshot(path=str(screenshot_dir / "handoff-arrival-reloaded.png"), full_page=True)

    # The context chart lists what the handoff call cost, with its reset.
    page.locator("#open-context-chart").click()
    marker = page.locator(
        f".baton-chart-marker[data-kind='reset']:has-text('Session {new_session}')"
    )
    marker.wait_for()
    assert re.search(r"handoff call: [\d,]+ in · [\d,]+ out tokens", marker.inner_text())
    assert "handoff and summary calls:" in page.locator("#context-chart-summary").inner_text()
    page.screenshot(path=str(screenshot_dir / "handoff-arrival-chart.png"))
