"""The chat page as a user sees it at 390 px and 1280 px (issue 44): a long message, the review
form and the handoff card, the toasts that speak of them, the phone's header and composer, and
what the page says around a reset and a handoff.
"""

from __future__ import annotations

import re

import pytest

from chat_app.services.conversation.threads import chats as thread_service
from tests.browser.chat_page import TURN_TIMEOUT_MS, hand_off, send, submit, wait_idle
from tests.browser.conftest import answer_here, rehearsed
from tests.browser.test_chat_figures import (
    DESKTOP,
    PHONE,
    _answered,
    _answered_here,
    _meter,
    _open,
)
from tests.browser.test_live_setups import _assistant

LONG_REQUEST = "\n\n".join(
    f"Step {n}: the parser must accept quoted fields, escaped quotes, CRLF line endings "
    "and a header row, and report the line of any malformed record."
    for n in range(1, 21)
)  # about 2,900 characters, as pasted requirements are

# Every toast the page shows, once each, in order (sonner keeps the same element per toast).
RECORD_TOASTS = """
() => {
  window.__toasts = [];
  const seen = new WeakSet();
  const look = () => document.querySelectorAll('[data-sonner-toast]').forEach(t => {
    if (!seen.has(t)) { seen.add(t); window.__toasts.push(t.innerText.trim()); }
  });
  new MutationObserver(look).observe(document.body, {childList: true, subtree: true});
  look();
}
"""


def _shoot(tab, screenshot_dir, name: str) -> None:
    for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        tab.set_viewport_size(viewport)
        tab.wait_for_timeout(300)
        assert tab.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"]
        tab.screenshot(path=str(screenshot_dir / f"{name}-{size}.png"))


def _overlap(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def _on_screen(tab, locator) -> dict:
    """The part of ``locator``'s box the user sees: between the sticky header and the dock."""
    box = locator.bounding_box()
    top = tab.locator(".baton-sticky-header").bounding_box()
    dock = tab.locator(".baton-composer-dock").bounding_box()
    upper = max(box["y"], top["y"] + top["height"])
    lower = min(box["y"] + box["height"], dock["y"])
    return {**box, "y": upper, "height": max(0.0, lower - upper)}


def _toast_over_the_header_only(tab, toast) -> None:
    """On a phone a toast sits over the header: off the timeline, the form and the composer."""
    tab.wait_for_timeout(400)  # sonner slides it in
    shown, header = toast.bounding_box(), tab.locator(".baton-sticky-header").bounding_box()
    assert shown["y"] >= 0 and shown["y"] + shown["height"] <= header["y"] + header["height"], (
        shown,
        header,
    )
    for covered in (".baton-composer-dock", "#handoff-review", ".baton-handoff[open]"):
        if tab.locator(covered).count():
            seen = _on_screen(tab, tab.locator(covered).last)
            assert not seen["height"] or not _overlap(shown, seen), (covered, shown, seen)


def test_a_long_message_the_review_form_and_the_card_as_a_user_sees_them(
    owned, app, screenshot_dir
) -> None:
    context, owner = owned
    assistant = _assistant(review_handoffs="on")
    thread, tab = _answered(context, app, owner, "Look", assistant_id=assistant, task=LONG_REQUEST)
    bubble = tab.locator("[data-role=user] .baton-bubble").last
    collapsed = bubble.bounding_box()["height"]
    assert collapsed < 400, collapsed  # it was 1,066 px
    bubble.scroll_into_view_if_needed()
    _shoot(tab, screenshot_dir, "long-message")
    tab.set_viewport_size(DESKTOP)
    bubble.get_by_text("Show more").click()
    assert bubble.bounding_box()["height"] > collapsed + 200
    bubble.get_by_text("Show less").click()

    submit(tab, "/handoff")
    tab.locator("#handoff-review").wait_for(timeout=TURN_TIMEOUT_MS)
    wait_idle(tab)
    tab.locator("#handoff-review").scroll_into_view_if_needed()
    _shoot(tab, screenshot_dir, "review-form")
    # On a phone the composer stays a composer while the form shows (it grew to 310 px).
    composer = tab.locator(".baton-composer").bounding_box()
    assert composer["height"] <= 120, composer

    tab.evaluate(RECORD_TOASTS)
    tab.locator("#review-confirm").click()
    toast = tab.locator("[data-sonner-toast]", has_text="Handoff confirmed")
    toast.wait_for(state="visible", timeout=TURN_TIMEOUT_MS)
    toast.hover()
    toast.hover()  # holds it (sonner pauses on hover) while the card opens under it
    tab.locator("#handoff-review").wait_for(state="detached", timeout=TURN_TIMEOUT_MS)
    wait_idle(tab)
    tab.locator(".baton-handoff-summary").last.click()
    card = tab.locator(".baton-handoff[open]").last
    card.scroll_into_view_if_needed()
    toast.hover()
    _toast_over_the_header_only(tab, toast)
    tab.wait_for_timeout(1_000)  # whatever else the confirmation would say has arrived
    said = tab.evaluate("() => window.__toasts")
    # One toast for one confirmation: "Session 2 started with the handoff" said it again.
    assert len(said) == 1, said
    assert tab.locator("[data-sonner-toast]").all_inner_texts() == ["Handoff confirmed as written"]

    # The goal quoted from the long request is folded to a few lines, and opens in full.
    goal = card.locator(".baton-handoff-fold", has=tab.locator(".baton-handoff-goal"))
    folded = goal.locator(".baton-fold-body").bounding_box()["height"]
    line = float(
        goal.locator(".baton-handoff-goal").evaluate(
            "e => parseFloat(getComputedStyle(e).lineHeight)"
        )
    )
    assert folded <= 6 * line, (folded, line)
    goal.get_by_text("Show more").click()
    assert goal.locator(".baton-fold-body").bounding_box()["height"] > folded + 2 * line
    goal.get_by_text("Show less").click()
    goal.evaluate("e => e.scrollIntoView({block: 'center'})")  # the card's folded top
    _shoot(tab, screenshot_dir, "handoff-card")


def test_on_a_phone_the_header_keeps_the_chat_title_readable(owned, app) -> None:
    context, owner = owned
    title = "Write a config parser with tests"
    thread = thread_service.create_thread(app, owner, title)
    tab = _open(context, thread.id, PHONE)
    shown = tab.locator("#thread-title")
    fit = shown.evaluate("e => ({cut: e.scrollWidth > e.clientWidth + 1, width: e.clientWidth})")
    assert not fit["cut"], fit  # it read "Write a c…"
    # The meter and the chat's actions are still in the header, and nothing runs off it.
    for control in ("#open-context-chart", "#share-open"):
        box = tab.locator(control).bounding_box()
        assert box is not None and box["x"] + box["width"] <= PHONE["width"], (control, box)
    assert tab.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]


def test_a_chat_made_before_its_first_message_is_listed_once_it_has_one(owned, app) -> None:
    context, owner = owned
    thread = thread_service.create_thread(app, owner, "Made first")
    tab = _open(context, thread.id, DESKTOP)
    other = _open(context, thread.id, DESKTOP)  # the owner's other tab on it
    tab.locator("#thread-list-empty").wait_for()  # nothing sent to it yet
    send(tab, "Write a tiny greeting module")
    for shown in (tab, other):
        shown.locator(f"#sidebar [data-thread='{thread.id}']").wait_for(timeout=10_000)
    assert tab.locator("#thread-list-empty").count() == 0
    wait_idle(tab)


def test_the_share_dialog_says_when_a_link_expires(owned, app) -> None:
    context, owner = owned
    _, tab = _answered_here(context, app, owner, "Shared", task="Write a tiny greeting module")
    tab.locator("#share-open").click()
    dialog = tab.get_by_role("dialog")
    expiry = dialog.get_by_role("combobox", name="When the link expires")
    assert expiry.inner_text().strip() == "Never expires"
    assert "days until it expires" not in dialog.inner_text()
    expiry.click()
    tab.get_by_role("option", name="Expires in 7 days").click()
    expiry.filter(has_text="Expires in 7 days").wait_for()  # the choice, said the same way
    dialog.locator("#share-create").click()
    dialog.locator("#share-url").wait_for()
    dialog.get_by_text("· expires 20").wait_for()


# Every moment the page says "Resetting context…", how many times it says it.
RECORD_RESETTING = """
() => {
  window.__resetting = [];
  const look = () => {
    const n = document.body.innerText.split('Resetting context').length - 1;
    if (n) window.__resetting.push(n);
  };
  new MutationObserver(look).observe(document.body,
    {childList: true, subtree: true, characterData: true});
}
"""


def test_a_reset_says_resetting_once_and_the_chart_counts_1_reset(owned, app) -> None:
    context, owner = owned
    assistant = _assistant(context_strategy="reset", reset_threshold="55")
    tasks = [f"Write a config parser with tests, part {turn + 1}" for turn in range(8)]
    # The turns before the one that resets (found on a chat of its own) are run by this
    # process, at once; the browser's turn resets.
    here = rehearsed(app, assistant, tasks, lambda t: len(app.store.sessions(t)) > 1)
    thread = thread_service.create_thread(app, owner, "One reset", assistant_id=assistant)
    for task in tasks[:here]:
        answer_here(app, owner, thread.id, task)
    tab = _open(context, thread.id, DESKTOP)
    if here:
        tab.locator("[data-role=assistant]").last.wait_for()
    tab.evaluate(RECORD_RESETTING)
    for task in tasks[here:]:
        send(tab, task)
        wait_idle(tab)
        if len(app.store.sessions(thread.id)) > 1:
            break
    assert len(app.store.sessions(thread.id)) == 2, "no reset within 8 turns"
    said = tab.evaluate("() => window.__resetting")
    assert said and max(said) == 1, said  # said, and only once at a time

    tab.locator("#open-context-chart").click()
    summary = tab.locator("#context-chart-summary")
    summary.wait_for()
    assert " · 1 reset · " in summary.inner_text(), summary.inner_text()


def _notice(tab) -> str:
    shown = tab.locator("#reset-notice")
    return shown.inner_text() if shown.count() else ""


def test_after_a_handoff_the_meter_and_the_warn_notice_are_the_reloads(owned, app) -> None:
    context, owner = owned
    assistant = _assistant(context_strategy="reset", warn_threshold="25")
    thread = thread_service.create_thread(app, owner, "Warned", assistant_id=assistant)
    tab = _open(context, thread.id, DESKTOP)
    for turn in range(4):
        send(tab, f"Write a config parser with tests, part {turn + 1}")
        wait_idle(tab)
        try:
            tab.locator("#reset-notice", has_text="past the warn threshold").wait_for(timeout=5_000)
            break
        except Exception:
            continue
    else:
        pytest.fail("the warn notice never showed")
    hand_off(tab)
    assert len(app.store.sessions(thread.id)) == 2
    fresh = _open(context, thread.id, DESKTOP)
    reloaded_meter, reloaded_notice = _meter(fresh), _notice(fresh)
    fresh.close()
    tab.wait_for_timeout(1_000)  # the handoff's last events have arrived
    assert (_meter(tab), _notice(tab)) == (reloaded_meter, reloaded_notice)


def test_past_its_window_the_warn_notice_says_so_plainly(owned, app) -> None:
    from sqlmodel import Session

    from chat_app.db import repo
    from chat_app.db.engine import write_engine
    from chat_app.db.models import AssistantUpdate

    context, owner = owned
    assistant = _assistant(context_strategy="reset", reset_threshold="95")
    thread, tab = _answered_here(
        context, app, owner, "Past", assistant_id=assistant, task="Write a config parser"
    )
    tokens = thread_service.current_meter(app, owner, thread.id).tokens
    # The window shrinks under the chat (as an imported history is larger than the window its
    # chats get): the context is now twice the window.
    with Session(write_engine(app.engine)) as db:
        repo.update_assistant(
            session=db, assistant_id=assistant, changes=AssistantUpdate(window_override=tokens // 2)
        )
    tab.reload()
    notice = tab.locator("#reset-notice")
    notice.wait_for()
    said = notice.inner_text()
    assert "The context is over the model's window" in said, said
    assert f"of {tokens // 2:,} tokens" in said, said
    assert not re.search(r"\d{3,}%", said), said  # not "Context at 200%"
    assert "comes at" not in said, said  # no threshold ahead of it: it is past them all
    assert "the next turn starts with the automatic reset" in said, said
