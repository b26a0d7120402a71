"""A tab's sends and its chat list, on SQLite (with the turn process) and on PostgreSQL +
Redis (skipped, saying why, when either server is absent).

A command (``/handoff``, a refused ``/help``) is never stored as a message, yet it takes a
place in the tab's send order: the message after it went out only once the server gave up
waiting for the command to be stored (10 s). A message sent by the same tab while a handoff
waits for review is shown queued at once, with nothing said to be running. A chat made or
deleted in one tab reaches the chat list of the owner's other tabs.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from chat_app.services.conversation.threads import chats as thread_service
from tests.browser.app_server import AppServer, running_app
from tests.browser.chat_page import TURN_TIMEOUT_MS, hand_off, send, start_chat, submit, wait_idle
from tests.browser.conftest import SECRET_KEY
from tests.browser.test_live_setups import _assistant, tabs  # noqa: F401  (fixture)
from tests.browser.test_scale_out import _postgres_database, _redis

SETUPS = ["sqlite", "postgres-redis"]
# A plain follow-up is taken in 0.1-0.2 s; the wait for a predecessor that never comes is 10 s.
TAKEN_WITHIN_S = 5.0


@pytest.fixture(scope="module", params=SETUPS)
def served(request, chromium_path, tmp_path_factory) -> Iterator[AppServer]:
    """The app on SQLite (the shared server: one worker and its turn process), or on
    PostgreSQL + Redis."""
    if request.param == "sqlite":
        server = request.getfixturevalue("app_server")
        server.db_url = f"sqlite:///{server.db_path}"
        yield server
        return
    env = {
        "BATON_SIM_WINDOW": "6000",
        "BATON_SIM_DELAY": "0.02",
        "BATON_SECRET_KEY": SECRET_KEY,
        "REFLEX_REDIS_URL": _redis(),
    }
    for database_url in _postgres_database():
        env["REFLEX_DB_URL"] = database_url
        with running_app(tmp_path_factory.mktemp("baton-order-pg"), env) as server:
            server.db_url = database_url
            yield server


@pytest.fixture
def owned(tabs) -> tuple:  # noqa: F811  (the imported fixture, by name)
    """A browser context of one owner (two tabs' worth), and that owner."""
    return tabs


def _chat_tab(app, context, owner: str, assistant_id: str | None = None):
    thread = thread_service.create_thread(app, owner, "Send order", assistant_id=assistant_id)
    tab = context.new_page()
    tab.goto(f"/t/{thread.id}")
    tab.locator("#composer-input").wait_for()
    return tab


def _seconds_to_show(tab, text: str) -> float:
    started = time.monotonic()
    send(tab, text)
    return time.monotonic() - started


def test_a_message_after_a_command_is_taken_at_once(owned, app) -> None:
    context, owner = owned
    tab = _chat_tab(app, context, owner)
    send(tab, "Write a tiny greeting module with a test")
    wait_idle(tab)

    submit(tab, "/help")
    tab.locator("#composer-notice", has_text="/help is not a command").wait_for()
    after_refusal = _seconds_to_show(tab, "After the refused command")
    wait_idle(tab)

    hand_off(tab)
    after_handoff = _seconds_to_show(tab, "After the handoff")
    wait_idle(tab)
    assert after_refusal < TAKEN_WITHIN_S, after_refusal
    assert after_handoff < TAKEN_WITHIN_S, after_handoff


# Records, whenever the page changes, whether it says a turn runs (Stop, "Thinking…").
RECORD_RUNNING = """
() => {
  window.__said = [];
  const look = () => window.__said.push({
    stop: !!document.getElementById('stop-button'),
    thinking: (document.getElementById('timeline')?.innerText || '').includes('Thinking…'),
    queued: document.querySelectorAll('[data-queued=true]').length,
  });
  new MutationObserver(look).observe(document.body,
    {childList: true, subtree: true, attributes: true, characterData: true});
  look();
}
"""


def test_a_message_sent_during_a_review_shows_waiting_in_the_same_tab(owned, app) -> None:
    context, owner = owned
    tab = _chat_tab(app, context, owner, _assistant(review_handoffs="on"))
    send(tab, "Write a tiny greeting module with a test")
    wait_idle(tab)
    submit(tab, "/handoff")
    tab.locator("#handoff-review").wait_for(timeout=TURN_TIMEOUT_MS)
    wait_idle(tab)

    waiting = "Sent during the review: also greet in French"
    tab.evaluate(RECORD_RUNNING)
    started = time.monotonic()
    submit(tab, waiting)
    tab.locator("[data-queued='true']", has_text=waiting).wait_for(timeout=TURN_TIMEOUT_MS)
    shown_after = time.monotonic() - started
    tab.wait_for_function("() => !document.getElementById('composer-input').value")
    wait_idle(tab, timeout=10_000)
    tab.wait_for_timeout(1_000)  # nothing runs: nothing may start saying so
    said = tab.evaluate("() => window.__said")
    assert shown_after < TAKEN_WITHIN_S, shown_after
    assert not [s for s in said if s["stop"] or s["thinking"]], said

    tab.locator("#review-confirm").click()
    tab.locator("#handoff-review").wait_for(state="detached", timeout=TURN_TIMEOUT_MS)
    tab.wait_for_function(
        "() => !document.querySelector('[data-queued=true]')", timeout=TURN_TIMEOUT_MS
    )
    wait_idle(tab)


def _listed(tab, title: str):
    return tab.locator("#sidebar .baton-thread-row", has_text=title)


def test_new_and_deleted_chats_reach_the_owners_other_tabs(owned) -> None:
    context, _ = owned
    elsewhere = context.new_page()
    elsewhere.goto("/")
    elsewhere.locator("#composer-input").wait_for()
    first = context.new_page()
    title = "Chat made in another tab"
    start_chat(first, title)
    # No focus, no reload: the list follows by itself.
    _listed(elsewhere, title).wait_for(timeout=20_000)

    row = first.locator("#sidebar .baton-thread-row[data-current=true]")
    row.get_by_role("button", name="Delete chat").click()
    first.get_by_role("alertdialog").get_by_role("button", name="Delete").click()
    _listed(elsewhere, title).wait_for(state="detached", timeout=20_000)
