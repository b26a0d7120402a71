"""Issue 7: context resets as the user sees them, live and after a reload.

The server runs the offline simulator with a small context window (see conftest), so a few
ordinary turns fill it and resets happen on their own.
"""

from __future__ import annotations

import re

from chat_app.services.conversation.threads import chats as thread_service
from tests.browser.chat_page import (
    TURN_TIMEOUT_MS,
    WATCH_SCRIPT,
    load_whole_chat,
    send,
    timeline,
    user_messages,
    wait_idle,
    wait_interactive,
)
from tests.browser.conftest import answer_here, rehearsed

MAX_TURNS = 24
QUEUED_TEXT = "While you reset: also add a verbose flag"


def _idle_or_resetting(page) -> str:
    handle = page.wait_for_function(
        """() => {
             const a = document.querySelector('.baton-composer')?.getAttribute('data-activity');
             return a === 'idle' || a === 'resetting' ? a : null;
           }""",
        timeout=TURN_TIMEOUT_MS,
    )
    return handle.json_value()


def _task(turn: int) -> str:
    return f"Task {turn}: add a parser for config format number {turn}"


def _work_until_two_resets(page, tasks: list[str]) -> bool:
    """Send ``tasks`` until two resets happened, pressing Enter on a message during one of them.

    The message waits typed in the composer, so pressing Enter is all that is left to do
    when the composer reports a reset; whether the server is still resetting when it gets
    there or already running the new session, the thread queues it behind the run.
    Returns whether Enter was pressed while the composer showed a reset.
    """
    sent_during_reset = False
    for task in tasks:
        send(page, task)
        if not sent_during_reset:
            page.locator("#composer-input").fill(QUEUED_TEXT)
            if _idle_or_resetting(page) == "resetting":
                page.locator("#composer-input").press("Enter")
                sent_during_reset = True
            else:
                page.locator("#composer-input").fill("")
        wait_idle(page)
        if page.locator(".baton-handoff").count() >= 2 and sent_during_reset:
            break
    return sent_during_reset


def _conversation(rows: list[tuple[str, str]]) -> list[tuple[str, str]]:
    # Session 1 has a divider only once loaded from the database; every later one has both.
    return [row for row in rows if row[0] in ("user", "assistant") or row[1] not in ("", "1")]


def test_resets_appear_live_navigate_and_survive_a_reload(owned, app, screenshot_dir):
    context, owner = owned
    tasks = [_task(turn) for turn in range(MAX_TURNS)]
    # The turns that only fill the context are run by this process, at once, up to the one
    # before the first reset (found on a chat of its own); the browser sends the rest.
    first_reset = rehearsed(app, None, tasks, lambda t: len(app.store.sessions(t)) > 1)
    here = max(first_reset - 1, 0)
    thread = thread_service.create_thread(app, owner, "Resets")
    for task in tasks[:here]:
        answer_here(app, owner, thread.id, task)
    page = context.new_page()
    page.set_viewport_size({"width": 1100, "height": 820})
    page.goto(f"/t/{thread.id}")
    wait_interactive(page)
    if here:
        page.locator("[data-role=assistant]").last.wait_for()
    page.evaluate(WATCH_SCRIPT)

    sent_during_reset = _work_until_two_resets(page, tasks[here:])
    page.screenshot(path=str(screenshot_dir / "resets-live.png"), full_page=True)

    # The dividers arrived live, each with its handoff card.
    assert page.locator(".baton-divider .baton-handoff").count() >= 2
    assert page.locator("[data-session='2'].baton-divider").count() == 1

    # The meter moved, and fell back after a reset.
    meter = [float(v) for v in page.evaluate("window.__baton.meter")]
    assert len(set(meter)) >= 3
    assert any(later < earlier for earlier, later in zip(meter, meter[1:], strict=False))

    # A message typed during a reset was queued and delivered after the divider.
    assert sent_during_reset, "no reset lasted long enough to type into"
    rows = timeline(page)
    queued_at = rows.index(("user", QUEUED_TEXT))
    first_divider = next(i for i, row in enumerate(rows) if row[0] == "divider" and row[1] != "1")
    assert queued_at > first_divider
    assert page.locator("[data-queued='true']").count() == 0

    # The handoff card opens in the browser and shows the artifact.
    card = page.locator("[data-session='2'].baton-divider .baton-handoff")
    card.locator("summary").first.click()
    assert card.get_attribute("open") is not None
    body = card.locator(".baton-handoff-body")
    body.wait_for()
    # The section headings (items such as "Completed todo: …" hold the words too).
    assert (
        body.get_by_text("Completed", exact=True).is_visible()
        or body.get_by_text("In progress", exact=True).is_visible()
    )
    assert card.locator(".baton-handoff-download").is_visible()
    # The state line is counted from the lists the card holds: never "0 files" beside files.
    state = card.locator(".baton-handoff-state").inner_text()
    files = card.locator(".baton-files li").count()
    assert re.search(rf"\b{files} files? changed", state), (state, files)
    page.locator("[data-session='2'].baton-divider").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "handoff-open.png"))

    # A chip scrolls to its divider.
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.locator(".baton-chip[data-session='2']").click()
    page.wait_for_function(
        """() => { const top = document.getElementById('session-2').getBoundingClientRect().top;
                   return top >= 0 && top < 300; }"""
    )
    page.screenshot(path=str(screenshot_dir / "chip-jump.png"))

    # A reload shows the same conversation and the same seams.
    live = _conversation(timeline(page))
    page.reload()
    page.locator("#composer-input").wait_for()
    load_whole_chat(page)
    page.locator("[data-session='2'].baton-divider").wait_for()
    reloaded = _conversation(timeline(page))
    # Both show a window of the newest rows, cut at slightly different places (the live one
    # counts rows as they arrive, the loaded one counts stored messages); compare the overlap.
    overlap = min(len(live), len(reloaded))
    assert overlap >= 10
    assert reloaded[-overlap:] == live[-overlap:]
    assert ("divider", "2") in reloaded and ("divider", "3") in reloaded
    assert QUEUED_TEXT in user_messages(page)
    assert page.locator(".baton-chip").count() >= 3
