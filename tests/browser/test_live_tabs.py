"""Every tab on a chat follows its runs live: a second tab, a reloaded tab, a tab that queued
a message while another tab's turn ran (the live thread channel, ``services/runtime/live.py``).

These tests act while a turn runs, so the turn must outlast what a test does meanwhile
(open a tab, reload, type). At the shared server's pace a follow-up turn is over in about
2 s, less than a reload and a Playwright round trip take on a busy machine: this module is
served by the slow simulator's server (``slow_app_server``: a follow-up turn takes about
8 s, a whole plan about 20 s), and each test checks what the other tab showed
*while* the turn ran (recorded in the page), not what it shows when the test looks.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from chat_app.states.chat import OPEN_MIN_ROWS
from tests.browser.app_server import AppServer
from tests.browser.chat_page import (
    TURN_TIMEOUT_MS,
    activity,
    send,
    start_chat,
    timeline,
    user_messages,
    wait_idle,
    wait_interactive,
)
from tests.browser.conftest import answered_here

LONG_TASK = "Write a config parser with tests"


@pytest.fixture(scope="module")
def app_server(slow_app_server: AppServer) -> AppServer:
    return slow_app_server


# Records in the page each time it shows a turn running (with Stop) and which user messages
# it shows then: what the tab showed live, whenever the test gets to look.
RECORD_RUNNING = """
() => {
  window.__running = [];
  const look = () => {
    const running = document.querySelector('.baton-composer')?.getAttribute('data-activity') !== 'idle'
      && document.getElementById('stop-button');
    if (!running) return;
    const users = [...document.querySelectorAll('[data-role=user] .baton-markdown')]
      .map(e => e.innerText.trim());
    const queued = document.querySelectorAll('[data-queued=true]').length;
    window.__running.push({users, queued});
  };
  new MutationObserver(look).observe(document.body,
    {childList: true, subtree: true, attributes: true, characterData: true});
  look();
}
"""


def _shown_while_running(page) -> list[dict]:
    return page.evaluate("() => window.__running")


def _wait_running(page) -> None:
    page.wait_for_function(
        "() => document.querySelector('.baton-composer')?.getAttribute('data-activity') !== 'idle'"
        " && document.getElementById('stop-button')",
        timeout=30_000,
    )


def _conversation(rows: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """A timeline less session 1's divider, which only a window reaching the thread's
    start shows."""
    return [row for row in rows if row != ("divider", "1")]


def _stored_timeline(page) -> list[tuple[str, str]]:
    """The timeline as the thread stored it: what a reload of ``page`` shows."""
    page.reload()
    page.locator("#timeline .baton-item").first.wait_for()
    wait_idle(page)
    return _conversation(timeline(page))


def _assert_shows_what_is_stored(followed, stored) -> None:
    """The rows a tab that followed the turns shows end with what a reload shows. A reload
    opens a long chat at its newest rows (``ChatState._open_window``: up to 45 KB, at least
    20 rows; earlier ones load on scrolling up), so it may begin after the thread's start."""
    assert len(stored) >= min(len(followed), OPEN_MIN_ROWS), (stored, followed)
    assert followed[len(followed) - len(stored) :] == stored


def _open(context, path: str):
    tab = context.new_page()
    tab.goto(path)
    tab.locator("#composer-input").wait_for()
    return tab


def _answered_in_two_tabs(context, app, owner: str) -> tuple:
    """Two tabs on a chat whose first message ("Hello") is answered. That answer is run by
    this process, at once: at this module's pace its whole plan takes about 20 s, and it is
    not what the tests look at."""
    path = f"/t/{answered_here(app, owner, 'Hello')}"
    tabs = []
    for _ in range(2):
        tab = _open(context, path)
        wait_interactive(tab)
        tab.locator("[data-role=assistant]").last.wait_for()
        wait_idle(tab)
        tabs.append(tab)
    return tabs[0], tabs[1]


def test_a_second_tab_follows_a_turn_started_in_the_first(owned, app) -> None:
    page, other = _answered_in_two_tabs(owned[0], app, owned[1])
    other.evaluate(RECORD_RUNNING)
    replies_before = other.locator("[data-role=assistant]").count()
    send(page, LONG_TASK)
    # The other tab showed the turn running (with Stop) and the new message, live.
    other.wait_for_function("() => window.__running.length > 0", timeout=30_000)
    wait_idle(page)
    wait_idle(other)
    shown = _shown_while_running(other)
    assert shown, "the other tab never showed the turn running"
    assert any(LONG_TASK in seen["users"] for seen in shown)
    assert other.locator("[data-role=assistant]").count() > replies_before
    _assert_shows_what_is_stored(_conversation(timeline(other)), _stored_timeline(page))
    assert activity(other) == "idle"


_FINISHED = "todos are complete"  # the simulator's last words on a finished task


_COUNT_FINISHED = (
    "(text) => [...document.querySelectorAll('[data-role=assistant]')]"
    ".filter(e => e.innerText.includes(text)).length"
)


def _finished_turns(page) -> int:
    return page.evaluate(_COUNT_FINISHED, _FINISHED)


def _reloaded_mid_turn(page) -> bool:
    """In a new chat (so the task's whole plan runs: four todos, about 20 s here), send the long
    task, reload while it runs, and say whether the reloaded page shows it running. False
    only when the turn had already finished when the page came back (a busy machine can
    take longer to reload than the turn lasts): then nothing was tested."""
    start_chat(page)
    send(page, LONG_TASK)
    page.wait_for_url("**/t/**")
    _wait_running(page)
    page.reload()
    page.locator("#composer-input").wait_for()
    page.wait_for_function(
        "([text]) => (document.querySelector('.baton-composer')"
        "?.getAttribute('data-activity') !== 'idle' && document.getElementById('stop-button'))"
        f" || ({_COUNT_FINISHED})(text) > 0",
        arg=[_FINISHED],
        timeout=30_000,
    )
    # Idle with the turn unfinished is the failure this test is for: it times out above.
    return page.locator("#stop-button").count() > 0


def test_a_tab_reloaded_mid_turn_shows_the_turn_and_can_stop_it(page) -> None:
    for _ in range(3):
        if not _reloaded_mid_turn(page):
            continue
        try:
            page.locator("#stop-button").click(timeout=5_000)
        except PlaywrightTimeout:  # the turn ended before the click
            continue
        wait_idle(page)
        page.reload()
        page.locator("#composer-input").wait_for()
        assert activity(page) == "idle"
        if _finished_turns(page) == 0:
            return  # stopped: the todo list was not run to its end
        # The turn finished before the Stop reached it: nothing was tested; again.
    raise AssertionError(
        "in 3 tries the turn was never shown running after a reload and "
        "then stopped by its Stop button"
    )


def test_a_message_queued_in_one_tab_during_anothers_turn_is_answered_in_both(owned, app) -> None:
    page, other = _answered_in_two_tabs(owned[0], app, owned[1])
    page.evaluate(RECORD_RUNNING)
    send(page, LONG_TASK)
    _wait_running(other)
    follow_up = "Also add a --verbose flag"
    send(other, follow_up)
    wait_idle(page)
    wait_idle(other)
    # The follow-up was stored while the turn ran: the first tab showed it queued then.
    shown = _shown_while_running(page)
    assert any(follow_up in seen["users"] and seen["queued"] for seen in shown), (
        f"the follow-up was not shown queued while the turn ran; shown then: {shown[-6:]}"
    )
    for tab in (page, other):
        assert user_messages(tab) == ["Hello", LONG_TASK, follow_up]
        # Delivered: no "queued" badge is left on either tab.
        tab.wait_for_function(
            "() => !document.querySelector('[data-queued=true]')", timeout=TURN_TIMEOUT_MS
        )
    _assert_shows_what_is_stored(_conversation(timeline(other)), _stored_timeline(page))
