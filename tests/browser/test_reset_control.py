"""Issue 19, control over resets, in chromium: the warn notice and its three actions, the
review of a handoff before the next session runs, and the context chart after three resets.

Each test gets its own assistant on the offline simulator (the server's small window makes
the context fill within a few turns) and a chat owned by a fresh identity.
"""

from __future__ import annotations

import itertools
import re
import uuid
from collections.abc import Iterator

import pytest
from sqlmodel import Session

from agent_core import StoredMessage
from chat_app.db import repo
from chat_app.db.engine import write_engine
from chat_app.db.models import AssistantUpdate
from chat_app.root import root
from chat_app.services import admin as admin_service
from chat_app.services.conversation import runs as run_service
from chat_app.services.conversation.threads import chats as thread_service
from chat_app.services.security import identity
from tests.agent_core.providers.servers import Reply
from tests.browser.chat_page import TURN_TIMEOUT_MS, send, submit, wait_idle, wait_interactive
from tests.browser.conftest import PROVIDER_MODEL, answer_here, answer_here_short_of, rehearsed
from tests.chat_app.identities import mint_token, owner_of

MAX_TURNS = 30
# Where the warn test's assistant resets (the reset strategy's default).
RESET = 0.80


def _assistant(**fields: str) -> str:
    form = admin_service.AssistantForm(name=f"Reset control {uuid.uuid4().hex[:6]}", **fields)
    data = admin_service.validate_form(form)
    with Session(write_engine(root().engine)) as db:
        return repo.create_assistant(session=db, data=data).id


def _chat(app, page, app_server, assistant_id: str) -> tuple[str, str]:
    token = mint_token()
    page.context.add_cookies(
        [{"name": identity.COOKIE_NAME, "value": token, "url": app_server.url}]
    )
    thread = thread_service.create_thread(
        app, owner_of(token), "Reset control", assistant_id=assistant_id
    )
    page.goto(f"/t/{thread.id}")
    page.locator("#composer-input").wait_for()
    return f"/t/{thread.id}", thread.id


def _rows(thread_id: str) -> list[StoredMessage]:
    store = root().store
    return [row for s in store.sessions(thread_id) for row in store.messages(s.id)]


def _events(thread_id: str, name: str) -> list[StoredMessage]:
    return [
        row for row in _rows(thread_id) if row.role == "event" and row.meta.get("event") == name
    ]


def _task(turn: int) -> str:
    return f"Task {turn}: add a parser for config format number {turn}"


def _tasks(start: int) -> Iterator[str]:
    return (_task(turn) for turn in itertools.count(start))


def _work_until(page, done, start: int = 0) -> int:
    """Send turns until ``done()``; returns the next turn number."""
    for turn in range(start, start + MAX_TURNS):
        if done():
            return turn
        send(page, _task(turn))
        wait_idle(page)
        # The notice is read back from the store once the run's events settle, a moment
        # after the composer goes idle: look again briefly before sending the next turn.
        for _ in range(10):
            if done():
                break
            page.wait_for_timeout(200)
    assert done(), "the context never got there"
    return start + MAX_TURNS


def _notice_shown(page) -> bool:
    return page.locator("#reset-notice").count() > 0


def _notice_due(thread_id: str) -> bool:
    """Whether a page of the chat would show the warn notice (``reset_notice``), read from
    the store, a point early: the meter at its warn threshold, or the next turn's likely end
    at the trigger."""
    app = root()
    meter = thread_service.current_meter(app, None, thread_id)
    status = run_service.reset_status(app, None, thread_id)
    past_warn = meter is not None and meter.fraction >= status.warn - 0.01
    ahead = status.trigger > 0 and status.next_turn >= status.trigger - 0.01
    return status.warn > 0 and (past_warn or ahead)


def _toast(page, text: str) -> None:
    page.locator("[data-sonner-toast]", has_text=text).first.wait_for(timeout=TURN_TIMEOUT_MS)


def _shoot(page, locator: str, name: str, screenshot_dir) -> None:
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.locator(locator).scroll_into_view_if_needed()
        page.locator(locator).evaluate("element => { element.scrollTop = 0; }")
        page.screenshot(path=str(screenshot_dir / f"{name}-{width}.png"))
    page.set_viewport_size({"width": 1100, "height": 820})


@pytest.mark.timeout(1500)
def test_the_warn_notice_in_every_tab_and_its_three_actions(owned, screenshot_dir, app) -> None:
    context, owner = owned
    assistant = _assistant(
        context_strategy="reset", warn_threshold="30", keep_recent_tokens="300", mask_threshold=""
    )
    # The turns before the one that brings the notice (found on a chat of its own) are run by
    # this process, at once; the browser's turn brings it.
    first = rehearsed(app, assistant, [_task(n) for n in range(MAX_TURNS)], _notice_due)
    thread_id = thread_service.create_thread(app, owner, "Reset control", assistant_id=assistant).id
    for task in itertools.islice(_tasks(0), first):
        answer_here(app, owner, thread_id, task)
    path = f"/t/{thread_id}"
    page = context.new_page()
    page.set_viewport_size({"width": 1100, "height": 820})
    page.goto(path)
    wait_interactive(page)
    turn = _work_until(page, lambda: _notice_shown(page), first)
    assert turn > first, "the notice was there before a turn of this page"
    percent = int(page.locator("#reset-notice").get_attribute("data-percent") or 0)
    assert percent >= 30
    meter = page.locator("#context-meter .baton-meter-label").inner_text().strip()
    # The notice speaks of the meter's own figure, and stays once the turn is over.
    assert f"Context at {meter} — past the warn threshold (30%)" in (
        page.locator("#reset-notice").inner_text()
    )
    _shoot(page, "#reset-notice", "reset-notice", screenshot_dir)

    # Another tab of the same browser, and a reload, show the same notice.
    other = page.context.new_page()
    other.goto(path)
    other.locator("#reset-notice").wait_for()
    page.reload()
    page.locator("#reset-notice").wait_for()

    # "Compact now": a compaction at once, shown in both tabs; the notice follows the meter
    # down (gone, or with the meter's new, lower figure).
    page.locator("#notice-compact").click()
    _toast(page, "Compacted the earlier part of this session")
    page.locator(".baton-marker", has_text="Compacted").first.wait_for()
    other.locator(".baton-marker", has_text="Compacted").first.wait_for()
    page.wait_for_function(
        "(before) => { const n = document.getElementById('reset-notice');"
        " return !n || Number(n.dataset.percent) < before; }",
        arg=percent,
    )
    assert len(_events(thread_id, "compaction")) == 1

    # "Not yet": shown armed in both tabs (and after a reload) until the next automatic
    # reset, which it skips once.
    turn = _work_until(page, lambda: _notice_shown(page), turn)
    other.locator("#reset-notice").wait_for()
    page.locator("#notice-defer").click()
    page.locator("#notice-defer[data-armed=true]").wait_for()
    other.locator("#notice-defer[data-armed=true]").wait_for()
    assert len(_events(thread_id, "defer")) == 1
    # The turns that only fill the context on the way to the reset are run by this process,
    # at once; the browser's take it past the threshold, where "Not yet" acts.
    turn += answer_here_short_of(app, owner, thread_id, RESET, _tasks(turn))
    page.reload()
    page.locator("#notice-defer[data-armed=true]").wait_for()
    turn = _work_until(page, lambda: len(root().store.sessions(thread_id)) >= 2, turn)
    skipped = _events(thread_id, "deferred")
    assert len(skipped) == 1 and skipped[0].meta["action"] == "reset"
    second = root().store.sessions(thread_id)[1]
    assert second.utilization > 0.8  # the reset came one model call later, past its threshold
    page.locator(".baton-marker", has_text="Automatic reset deferred once").first.wait_for()

    # "Hand off now": the /handoff path, a new session with its divider.
    turn = _work_until(page, lambda: _notice_shown(page), turn)
    sessions = len(root().store.sessions(thread_id))
    page.locator("#notice-handoff").click()
    _toast(page, f"Session {sessions + 1} started with the handoff")
    page.locator(f"[data-session='{sessions + 1}'].baton-divider").wait_for()
    assert root().store.sessions(thread_id)[-1].trigger == "manual"
    other.close()


def test_a_handoff_reviewed_and_edited_is_what_the_next_session_sees(
    server_db, page, fake_provider, provider_script, screenshot_dir, app
) -> None:
    assistant = _assistant(review_handoffs="on")
    path, thread_id = _chat(app, page, server_db, assistant)
    send(page, "Write a tiny greeting module with a test")
    wait_idle(page)
    submit(page, "/handoff")
    form = page.locator("#handoff-review")
    form.wait_for(timeout=TURN_TIMEOUT_MS)
    wait_idle(page)
    original = form.locator("#review-next_step").input_value()
    assert original

    # A message sent meanwhile waits with the review, queued, across a reload.
    send(page, "Queued while reviewing: also greet in French")
    _toast(page, "The handoff waits for your review")
    page.reload()
    form.wait_for()
    page.locator("[data-queued='true']", has_text="Queued while reviewing").wait_for()
    assert form.locator("#review-next_step").input_value() == original

    edited = "EDITED-STEP-7: add the French greeting, then run the tests"
    form.locator("#review-next_step").fill(edited)
    form.locator("#review-constraints").fill("Keep the module under 40 lines")
    _shoot(page, "#handoff-review", "handoff-review", screenshot_dir)

    # The next model call goes to the loopback provider, so its request can be read.
    with Session(write_engine(root().engine)) as db:
        repo.update_assistant(
            session=db, assistant_id=assistant, changes=AssistantUpdate(model=PROVIDER_MODEL)
        )
    provider_script.queued[:] = [Reply(text="Continuing from the reviewed handoff.")]
    seen_before = len(fake_provider.requests)
    form.locator("#review-confirm").click()
    page.locator(
        "[data-role=assistant] .baton-markdown", has_text="Continuing from the reviewed handoff."
    ).wait_for(timeout=TURN_TIMEOUT_MS)
    page.locator("#handoff-review").wait_for(state="detached")
    sent = fake_provider.requests[seen_before:]
    assert sent, "no model call after the review"
    request = "\n".join(str(m.get("content")) for m in sent[0]["messages"])
    assert f"## Next Step\n\n{edited}" in request
    assert "Keep the module under 40 lines" in request
    assert f"## Next Step\n\n{original}" not in request
    assert "Queued while reviewing: also greet in French" in request
    assert page.locator("[data-queued='true']").count() == 0
    # Both versions are kept: the session's artifact as written, the edit beside it.
    session = root().store.sessions(thread_id)[1]
    assert session.handoff["next_step"] == original
    assert root().store.context_edits(session.id)[-1].artifact["next_step"] == edited


def test_the_chart_after_three_resets(owned, screenshot_dir, app) -> None:
    context, owner = owned
    assistant = _assistant(context_strategy="reset")
    thread_id = thread_service.create_thread(app, owner, "Reset control", assistant_id=assistant).id
    # The turns up to the third reset are run by this process, at once: the chart is what
    # the test looks at, and the browser would wait each turn out at the server's pace.
    for turn in range(MAX_TURNS):
        if len(root().store.sessions(thread_id)) >= 4:
            break
        answer_here(app, owner, thread_id, _task(turn))
    assert len(root().store.sessions(thread_id)) >= 4, "the context never got there"
    page = context.new_page()
    page.set_viewport_size({"width": 1100, "height": 820})
    page.goto(f"/t/{thread_id}")
    wait_interactive(page)
    page.locator("[data-role=assistant]").last.wait_for()

    # Opened from the meter with the keyboard.
    page.locator("#open-context-chart").focus()
    page.keyboard.press("Enter")
    chart = page.locator("#context-chart")
    chart.wait_for()
    page.locator("#context-chart-plot .recharts-line").first.wait_for()
    summary = page.locator("#context-chart-summary").inner_text()
    calls = len([r for r in _rows(thread_id) if r.role == "assistant"])
    assert summary.startswith(f"{calls} model calls · 3 resets")
    assert chart.locator(".baton-chart-marker[data-kind='reset']").count() == 3
    first_reset = chart.locator(".baton-chart-marker[data-kind='reset']").first.inner_text()
    # The handoff call is a model call too: what it cost is listed with its reset.
    assert re.fullmatch(
        r"Session 2 after call \d+ · handoff call: [\d,]+ in · [\d,]+ out tokens",
        first_reset.strip(),
    ), first_reset
    assert "handoff and summary calls:" in summary
    # Three reset markers plus the warn and reset thresholds (mask too: on by default).
    assert chart.locator(".recharts-reference-line").count() >= 3 + 2

    # Hovering the plot shows the numbers of the call under the pointer.
    plot = chart.locator("#context-chart-plot .recharts-wrapper").first
    box = plot.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.5)
    tooltip = chart.locator(".recharts-tooltip-wrapper")
    tooltip.filter(has_text="This chat").wait_for()
    numbers = tooltip.inner_text()
    assert re.search(r"This chat : \d+(\.\d)?%", numbers), numbers
    assert re.search(r"This chat tokens : [\d,]+", numbers), numbers
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        box = plot.bounding_box()
        assert box is not None
        page.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + box["height"] * 0.5)
        page.screenshot(path=str(screenshot_dir / f"context-chart-{width}.png"))
