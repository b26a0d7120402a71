"""What the chat page says is true, as a user reads it (issue 44): the meter after a turn and
after a handoff is the figure a reload shows, its title names only thresholds that act, the
handoff card never widens a phone's page and its Next line reads in full, "Regenerate reply"
sits only under a reply, and a second message sent right after a new chat's first goes into
the same chat.
"""

from __future__ import annotations

import uuid

import pytest
from sqlmodel import Session

from chat_app.db import repo
from chat_app.db.engine import write_engine
from chat_app.root import root
from chat_app.services import admin as admin_service
from chat_app.services.conversation.threads import chats as thread_service
from tests.browser.app_server import run_async
from tests.browser.chat_page import (
    TURN_TIMEOUT_MS,
    hand_off,
    send,
    submit,
    user_messages,
    wait_chat_loaded,
    wait_idle,
    wait_interactive,
)
from tests.browser.conftest import answer_here, rehearsed
from tests.browser.test_live_setups import _assistant

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


def _open(context, thread_id: str, viewport: dict | None = None):
    tab = context.new_page()
    if viewport:
        tab.set_viewport_size(viewport)
    tab.goto(f"/t/{thread_id}")
    wait_interactive(tab)
    wait_chat_loaded(tab)  # the figures read next are the loaded page's
    return tab


def _answered(
    context, app, owner: str, title: str, assistant_id: str | None = None, task: str = ""
):
    """A new chat of ``owner`` open in a tab, its first message ``task`` answered."""
    thread = thread_service.create_thread(app, owner, title, assistant_id=assistant_id)
    tab = _open(context, thread.id)
    send(tab, task)
    wait_idle(tab)
    return thread, tab


def _answered_here(
    context, app, owner: str, title: str, assistant_id: str | None = None, task: str = ""
):
    """As ``_answered``, the first turn run by this process on the server's database: for
    tests whose subject comes after the answer, not the answer streaming in a browser."""
    from chat_app.services.conversation.runs import chat as chat_service

    thread = thread_service.create_thread(app, owner, title, assistant_id=assistant_id)

    async def answer() -> None:
        async for _ in chat_service.send_message(app, owner, thread.id, task):
            pass

    run_async(answer())
    tab = _open(context, thread.id)
    # The composer shows before the chat's rows arrive: wait for the answer, then compare.
    tab.locator("[data-role=assistant]").last.wait_for()
    wait_idle(tab)
    assert user_messages(tab) == [task]
    return thread, tab


def _meter(tab) -> str:
    return tab.locator("#open-context-chart").get_attribute("title") or ""


def _meter_becomes_the_reloads(tab, thread_id: str) -> None:
    """The live meter settles on what a fresh page of the chat shows."""
    fresh = _open(tab.context, thread_id)
    reloaded = _meter(fresh)
    fresh.close()
    try:
        tab.wait_for_function(
            "t => document.getElementById('open-context-chart')?.getAttribute('title') === t",
            arg=reloaded,
            timeout=10_000,
        )
    except Exception:
        pytest.fail(f"live meter {_meter(tab)!r}, after a reload {reloaded!r}")


def test_the_meter_after_a_turn_and_after_a_handoff_is_the_reloads(owned, app) -> None:
    context, owner = owned
    thread, tab = _answered(context, app, owner, "Meter", task="Write a config parser with tests")
    _meter_becomes_the_reloads(tab, thread.id)
    hand_off(tab)
    _meter_becomes_the_reloads(tab, thread.id)


def test_the_meter_title_names_only_thresholds_that_act(owned, app) -> None:
    context, owner = owned
    resets = thread_service.create_thread(
        app, owner, "Resets", assistant_id=_assistant(context_strategy="reset")
    )
    compacts = thread_service.create_thread(
        app, owner, "Compacts", assistant_id=_assistant(context_strategy="compact")
    )
    tab = _open(context, resets.id)
    title = _meter(tab)
    assert "reset at 80%" in title and "compact" not in title, title
    assert tab.locator("#context-meter .baton-meter-mark").count() == 1
    tab.goto(f"/t/{compacts.id}")
    tab.wait_for_function(
        "() => (document.getElementById('open-context-chart')?.getAttribute('title') || '')"
        ".includes('compact at')"
    )
    title = _meter(tab)
    assert "compact at 50%" in title and "reset" not in title, title


# How the open card's Next line lays out, and whether the page scrolls sideways.
CARD_LAYOUT = """
() => {
  const next = document.querySelector('.baton-handoff[open] .baton-handoff-next');
  const style = next && getComputedStyle(next);
  return {
    pageWidth: document.documentElement.scrollWidth,
    window: window.innerWidth,
    next: next && {wraps: style.whiteSpace !== 'nowrap', ellipsis: style.textOverflow,
                   cut: next.scrollWidth > next.clientWidth + 1,
                   right: next.getBoundingClientRect().right},
  };
}
"""


def test_an_open_handoff_card_reads_in_full_and_keeps_a_phones_page(owned, app) -> None:
    context, owner = owned
    thread, tab = _answered_here(
        context, app, owner, "Card", task="Write a config parser with tests"
    )
    hand_off(tab)
    for viewport in (DESKTOP, PHONE):
        shown = _open(context, thread.id, viewport)
        shown.locator(".baton-handoff-summary").last.click()
        shown.locator(".baton-handoff[open] .baton-handoff-next").wait_for()
        layout = shown.evaluate(CARD_LAYOUT)
        assert layout["pageWidth"] <= layout["window"], layout
        assert layout["next"]["wraps"] and not layout["next"]["cut"], layout
        assert layout["next"]["right"] <= layout["window"], layout
        shown.close()


def test_regenerate_is_offered_under_a_reply_only(owned, app) -> None:
    context, owner = owned
    thread, tab = _answered(
        context, app, owner, "Regenerate", task="Write a config parser with tests"
    )
    tab.locator("#regenerate").wait_for()  # under the reply
    # Each tool row says it opens.
    tools = tab.locator("#timeline .baton-tool").count()
    assert tools and tab.locator("#timeline .baton-tool-summary .baton-chevron").count() == tools
    hand_off(tab)  # the timeline now ends with the handoff's card
    tab.wait_for_timeout(500)
    assert tab.locator("#regenerate").count() == 0
    tab.reload()
    tab.locator("#composer-input").wait_for()
    tab.locator("#timeline .baton-divider").last.wait_for()
    assert tab.locator("#regenerate").count() == 0


def test_a_second_message_right_after_a_new_chats_first_goes_into_it(owned, app) -> None:
    context, owner = owned
    tab = context.new_page()
    tab.goto("/")
    wait_interactive(tab)
    first, second = "Start a greeting module", "And give it a test"
    box = tab.locator("#composer-input")
    box.fill(first)
    box.press("Enter")
    box.fill(second)  # before the browser has opened the new chat
    box.press("Enter")
    tab.wait_for_url("**/t/**")
    tab.wait_for_function(
        """texts => texts.every(t => [...document.querySelectorAll(
             '[data-role=user] .baton-markdown')].some(e => e.innerText.trim() === t))""",
        arg=[first, second],
        timeout=TURN_TIMEOUT_MS,
    )
    wait_idle(tab)
    assert user_messages(tab) == [first, second]
    assert len(thread_service.list_threads(app, owner, "")) == 1


def test_a_cancelled_handoff_says_so_once(owned, app) -> None:
    context, owner = owned
    thread, tab = _answered_here(
        context, app, owner, "Cancel", task="Write a config parser with tests"
    )
    submit(tab, "/handoff")
    tab.get_by_role("button", name="Cancel handoff").click()
    toast = tab.locator("[data-sonner-toast]", has_text="Handoff cancelled")
    toast.wait_for()
    header = tab.locator(".baton-sticky-header").bounding_box()
    toast.wait_for(state="visible")
    tab.wait_for_timeout(400)  # sonner slides it in
    assert toast.bounding_box()["y"] >= header["y"] + header["height"] - 1  # not over it
    wait_idle(tab)
    tab.wait_for_timeout(500)  # whatever else the cancel would say has arrived
    toasts = tab.locator("[data-sonner-toast]").all_inner_texts()
    assert len([t for t in toasts if "Handoff cancelled" in t]) == 1, toasts
    assert not [t for t in toasts if "failed" in t or "Writing the handoff" in t], toasts
    assert len(app.store.sessions(thread.id)) == 1  # no new session


def _meter_percent(tab) -> float:
    return float(tab.locator("#context-meter").get_attribute("data-percent") or 0)


def test_the_warn_notice_shows_while_idle_before_the_turn_that_would_reset(owned, app) -> None:
    context, owner = owned
    assistant = _assistant(context_strategy="reset", reset_threshold="90", warn_threshold="85")
    thread = thread_service.create_thread(app, owner, "Look ahead", assistant_id=assistant)
    tasks = [f"Write a config parser with tests, part {turn + 1}" for turn in range(6)]
    # The turns that only grow the context are run by this process, at once, up to the one
    # before the turn that would reset (found on a chat of its own): the warning is due
    # after that one at the latest, which goes through the browser.
    before_reset = rehearsed(app, assistant, tasks, lambda t: len(app.store.sessions(t)) > 1)
    here = max(before_reset - 1, 0)
    for task in tasks[:here]:
        answer_here(app, owner, thread.id, task)
    tab = _open(context, thread.id)
    if here:
        tab.locator("[data-role=assistant]").last.wait_for()
    notice = tab.locator("#reset-notice", has_text="the next turn will likely pass 90%")
    for task in tasks[here:]:
        send(tab, task)
        wait_idle(tab)
        assert len(app.store.sessions(thread.id)) == 1, "reset before a warning"
        try:
            notice.wait_for(timeout=5_000)
        except Exception:
            continue
        assert _meter_percent(tab) < 85  # idle, below the warn threshold: warned ahead
        assert tab.locator("#notice-handoff").is_enabled()
        return
    pytest.fail("no warning while idle before the context reached the reset threshold")


def test_hand_off_now_during_a_turn_hands_off_at_its_next_step(owned, app) -> None:
    context, owner = owned
    assistant = _assistant(context_strategy="reset", warn_threshold="5")
    thread = thread_service.create_thread(app, owner, "Hand off mid-turn", assistant_id=assistant)
    tab = _open(context, thread.id)
    submit(tab, "Write a config parser with tests")
    tab.locator("#stop-button").wait_for()
    tab.locator("#notice-handoff").click(timeout=TURN_TIMEOUT_MS)  # past 5%, mid-turn
    tab.locator("[data-sonner-toast]", has_text="hands off at its next step").wait_for()
    tab.locator("#timeline .baton-divider").first.wait_for(timeout=TURN_TIMEOUT_MS)
    wait_idle(tab)
    sessions = app.store.sessions(thread.id)
    assert len(sessions) == 2 and sessions[1].trigger == "manual"


def test_a_rename_cancels_on_escape_and_refuses_an_empty_title(owned, app) -> None:
    context, owner = owned
    thread, tab = _answered_here(
        context, app, owner, "Named", task="Write a tiny greeting module with a test"
    )
    tab.reload()  # the list shows chats with a message
    row = tab.locator("#sidebar .baton-thread-row[data-current=true]")
    row.get_by_role("button", name="Rename chat").click()
    field = row.get_by_label("New title")
    field.fill("Not this one")
    field.press("Escape")
    field.wait_for(state="detached")
    assert tab.locator("#thread-title").inner_text() == "Named"
    assert tab.locator(".baton-composer").get_attribute("data-activity") == "idle"

    row.get_by_role("button", name="Rename chat").click()
    row.get_by_label("New title").fill("   ")
    row.get_by_role("button", name="Save").click()
    tab.locator("[data-sonner-toast]", has_text="A chat needs a title").wait_for()
    assert row.get_by_label("New title").is_visible()  # still open, to be fixed
    assert thread_service.owned_thread(app, owner, thread.id).title == "Named"


def test_a_long_chat_title_ends_in_an_ellipsis_in_the_list(owned, app) -> None:
    context, owner = owned
    title = "A chat whose title is far too long to fit in the list beside its buttons"
    thread, tab = _answered_here(
        context, app, owner, title, task="Write a tiny greeting module with a test"
    )
    tab.reload()
    shown = tab.locator("#sidebar .baton-thread-row[data-current=true] .baton-ellipsis").first
    shown.wait_for()
    fit = shown.evaluate(
        """e => ({cut: e.scrollWidth > e.clientWidth, overflow: getComputedStyle(e).textOverflow,
                 right: e.getBoundingClientRect().right,
                 rowRight: e.closest('.baton-thread-row').getBoundingClientRect().right})"""
    )
    assert fit["cut"] and fit["overflow"] == "ellipsis", fit  # "…" drawn, not cut mid-letter
    assert fit["right"] <= fit["rowRight"], fit


def test_a_reply_is_rated_with_a_note_and_admin_counts_it(owned, app) -> None:
    from chat_app.services.conversation.threads import feedback
    from tests.browser.test_admin_window import _sign_in

    context, owner = owned
    name = f"Rated {uuid.uuid4().hex[:6]}"
    form = admin_service.AssistantForm(name=name)
    with Session(write_engine(root().engine)) as db:
        assistant = repo.create_assistant(session=db, data=admin_service.validate_form(form)).id
    thread, tab = _answered_here(
        context,
        app,
        owner,
        "Rated",
        assistant_id=assistant,
        task="Write a tiny greeting module with a test",
    )
    reply = tab.locator("[data-role=assistant]").last
    reply.get_by_role("button", name="Bad reply").click()
    reply.locator(".baton-rate-down[aria-pressed=true]").wait_for()
    reply.get_by_role("button", name="Add a note to your rating").click()
    tab.get_by_placeholder("What was good or wrong").fill("It forgot the test.")
    tab.get_by_role("button", name="Save note").click()
    tab.locator("[data-sonner-toast]", has_text="your note is kept").wait_for()
    tab.reload()
    tab.locator("[data-role=assistant] .baton-rate-down[aria-pressed=true]").last.wait_for()
    stored = list(feedback.thread_feedback(app, owner, thread.id).values())
    assert [(f.rating, f.note) for f in stored] == [("down", "It forgot the test.")]

    admin = context.new_page()
    _sign_in(admin)
    admin.get_by_text(name, exact=True).first.click()
    admin.locator("#admin-feedback", has_text="👎 1").wait_for()
    admin.locator(".admin-feedback-note", has_text="It forgot the test.").wait_for()


def test_compact_now_is_not_offered_when_there_is_nothing_to_compact(owned, app) -> None:
    context, owner = owned
    assistant = _assistant(context_strategy="reset", warn_threshold="5")
    _, tab = _answered_here(
        context, app, owner, "Fresh", assistant_id=assistant, task="Write a config parser"
    )
    hand_off(tab)  # a fresh session: the handoff and nothing after it
    tab.locator("#reset-notice").wait_for()  # past 5% with the handoff alone
    tab.wait_for_timeout(2_500)  # the notice's status is read again after the run
    assert tab.locator("#notice-compact").count() == 0
    assert tab.locator("#notice-handoff").count() == 1


def test_settings_apply_on_every_device_of_the_user(owned, app, browser, server_db) -> None:
    context, owner = owned
    name = f"Default {uuid.uuid4().hex[:6]}"
    form = admin_service.AssistantForm(name=name)
    with Session(write_engine(root().engine)) as db:
        chosen = repo.create_assistant(session=db, data=admin_service.validate_form(form)).id
    _, first = _answered_here(context, app, owner, "Settings", task="Write a tiny greeting module")
    first.locator("#settings-open").click()
    dialog = first.get_by_role("dialog")
    dialog.locator("select[name=theme]").select_option("dark")
    dialog.locator("select[name=enter_sends]").select_option("off")
    dialog.locator("select[name=density]").select_option("compact")
    dialog.locator("select[name=default_assistant_id]").select_option(chosen)
    dialog.get_by_role("button", name="Save").click()
    first.locator("[data-sonner-toast]", has_text="Settings saved").wait_for()

    # Another device of the same user: its own browser profile, the same identity.
    device = browser.new_context(base_url=server_db.url, viewport=PHONE)
    device.add_cookies(context.cookies())
    try:
        other = device.new_page()
        other.goto(first.url)
        other.locator("#composer-input").wait_for()
        other.wait_for_function("() => document.documentElement.dataset.density === 'compact'")
        other.wait_for_function(
            "() => document.documentElement.classList.contains('dark')"
            " || !!document.querySelector('.radix-themes.dark')"
        )
        box = other.locator("#composer-input")
        box.fill("Line one")
        box.press("Enter")  # a new line, not a send
        box.type("Line two")
        assert box.input_value() == "Line one\nLine two"
        assert user_messages(other) == ["Write a tiny greeting module"]
        box.press("Control+Enter")
        other.wait_for_function(
            "() => [...document.querySelectorAll('[data-role=user] .baton-markdown')]"
            ".some(e => e.innerText.includes('Line two'))"
        )
        other.goto("/")
        other.locator("#composer-input").wait_for()
        if not other.locator("#new-chat").is_visible():
            other.locator("#sidebar-toggle").click()
        other.locator("#assistant-choice", has_text=name).wait_for()
    finally:
        device.close()
