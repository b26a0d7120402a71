"""Issue 19: the chat list beside the conversation (a drawer on a phone), a new chat stored
with its first message, the tab's title, the first visit, and the keyboard."""

from __future__ import annotations

from tests.browser.chat_page import TURN_TIMEOUT_MS, send, start_chat, user_messages, wait_idle
from tests.browser.conftest import answered_here

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 860}


def _sidebar_visible(page) -> bool:
    return page.evaluate(
        """() => { const s = document.getElementById('sidebar');
                   if (!s) return false;
                   const box = s.getBoundingClientRect(), style = getComputedStyle(s);
                   return style.display !== 'none' && style.visibility !== 'hidden'
                          && box.right > 0 && box.width > 0; }"""
    )


def _focused_id(page) -> str:
    return page.evaluate("() => document.activeElement ? document.activeElement.id : ''")


def _rows(page) -> list[str]:
    return page.locator("#sidebar .baton-thread-row").evaluate_all(
        "rows => rows.map(r => r.dataset.thread)"
    )


def test_a_new_chat_is_stored_only_when_its_first_message_is_sent(page) -> None:
    page.set_viewport_size(DESKTOP)
    start_chat(page)
    page.wait_for_function("() => document.activeElement?.id === 'composer-input'")
    assert page.url.endswith("/")
    assert page.title() == "New chat · Baton"
    page.locator("#new-chat").click()
    page.locator("#new-chat").click()
    page.reload()
    page.locator("#composer-input").wait_for()
    assert _rows(page) == []  # the clicks stored nothing

    # A refused first message creates nothing and stays in the composer.
    box = page.locator("#composer-input")
    box.fill("\u200b\u200b")
    box.press("Enter")
    page.locator("[data-sonner-toast]", has_text="invisible characters").wait_for()
    assert page.url.endswith("/") and box.input_value() == "\u200b\u200b"

    send(page, "Write a tiny greeting module")
    page.wait_for_url("**/t/**")
    thread_id = page.url.rsplit("/", 1)[-1]
    wait_idle(page)
    assert user_messages(page) == ["Write a tiny greeting module"]
    assert page.locator("[data-role=assistant]").count() > 0
    page.locator(f"#sidebar [data-thread='{thread_id}'][data-current=true]").wait_for()
    assert _rows(page) == [thread_id]
    # The header names the assistant and its model; the tab is named after the chat.
    assert page.locator("#chat-assistant").inner_text() == "Baton · Offline simulator"
    assert page.title() == "Write a tiny greeting module · Baton"
    # The model is named once for the run, not under each of its replies.
    replies = page.locator("[data-role=assistant]").count()
    labels = page.locator("[data-role=assistant] .baton-model-label").count()
    assert replies > 1 and labels == 1


def test_renaming_the_open_chat_renames_the_tab_and_the_header(page) -> None:
    page.set_viewport_size(DESKTOP)
    start_chat(page, "Port the parser to Rust")
    wait_idle(page)
    row = page.locator("#sidebar .baton-thread-row[data-current=true]")
    row.get_by_role("button", name="Rename chat").click()
    row.get_by_label("New title").fill("Rust port")
    row.get_by_role("button", name="Save").click()
    page.wait_for_function("() => document.title === 'Rust port · Baton'")
    assert page.locator("#thread-title").inner_text() == "Rust port"

    # Relative times stay fresh: the list's "just now" follows the clock.
    when = page.locator("#sidebar time.baton-reltime").first
    assert when.inner_text() == "just now"
    when.evaluate(
        "el => el.setAttribute('datetime', new Date(Date.now() - 5 * 60000).toISOString())"
    )
    page.evaluate("() => window.batonLayout.refreshTimes()")
    assert when.inner_text() == "5 min ago"

    # Deleting the open chat leaves it for a new one.
    row.get_by_role("button", name="Delete chat").click()
    page.get_by_role("alertdialog").get_by_role("button", name="Delete").click()
    page.wait_for_url("**/")
    page.locator("#thread-list-empty").wait_for()
    # Its toast sits over the chat list, beside the page: off the header, the rows and the
    # composer (over the page it covered the edge of what it spoke of).
    toast = page.locator("[data-sonner-toast]", has_text="Chat deleted").first
    toast.wait_for()
    page.wait_for_timeout(500)  # slid in
    box = toast.bounding_box()
    sidebar = page.locator("#sidebar").bounding_box()
    assert box["x"] >= sidebar["x"], (box, sidebar)
    assert box["x"] + box["width"] <= sidebar["x"] + sidebar["width"], (box, sidebar)
    assert box["y"] + box["height"] <= DESKTOP["height"], box


def test_the_sidebar_folds_away_and_stays_folded(page, screenshot_dir) -> None:
    page.set_viewport_size(DESKTOP)
    start_chat(page, "Write a config parser with tests")
    wait_idle(page)
    assert _sidebar_visible(page)
    page.screenshot(path=str(screenshot_dir / "h19a-chat-sidebar-1280.png"))
    toggle = page.locator("#sidebar-toggle")
    assert toggle.get_attribute("aria-expanded") == "true"
    toggle.click()
    assert not _sidebar_visible(page)
    assert toggle.get_attribute("aria-expanded") == "false"
    page.reload()
    page.locator("#composer-input").wait_for()
    assert not _sidebar_visible(page)
    page.locator("#sidebar-toggle").click()
    assert _sidebar_visible(page)


def test_on_a_phone_the_chat_list_is_a_drawer(owned, app, screenshot_dir) -> None:
    # The chat the drawer lists and opens is answered by this process, at once; the one on
    # screen is started and answered on the phone.
    context, owner = owned
    first = f"**/t/{answered_here(app, owner, 'Write a tiny greeting module')}"
    page = context.new_page()
    page.set_viewport_size(PHONE)
    start_chat(page, "Write a config parser with tests")
    wait_idle(page)
    assert not _sidebar_visible(page)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=str(screenshot_dir / "h19a-chat-390.png"))

    page.locator("#sidebar-toggle").click()
    page.wait_for_function("() => document.documentElement.classList.contains('baton-drawer-open')")
    page.wait_for_timeout(300)  # the slide-in
    assert _sidebar_visible(page)
    page.screenshot(path=str(screenshot_dir / "h19a-drawer-390.png"))
    page.keyboard.press("Escape")
    page.wait_for_timeout(300)
    assert not _sidebar_visible(page)

    page.locator("#sidebar-toggle").click()
    page.locator("#sidebar .baton-thread-row", has_text="greeting module").locator("a").click()
    page.wait_for_url(first)
    page.wait_for_timeout(300)
    assert not _sidebar_visible(page)  # opening a chat closes the drawer
    page.locator("#thread-title", has_text="greeting module").wait_for()


def test_a_first_visit_explains_baton_and_offers_tasks(page, screenshot_dir) -> None:
    for size, name in ((DESKTOP, "1280"), (PHONE, "390")):
        page.set_viewport_size(size)
        page.goto("/")
        page.locator("#welcome").wait_for()
        page.screenshot(path=str(screenshot_dir / f"h19a-first-visit-{name}.png"))
    text = page.locator("#welcome-text").inner_text()
    assert text.count(". ") + text.endswith(".") == 2  # two sentences
    page.set_viewport_size(DESKTOP)
    example = page.locator("#example-tasks button").first
    task = example.inner_text().strip()
    example.click()
    assert page.locator("#composer-input").input_value() == task
    assert _focused_id(page) == "composer-input"
    page.locator("#composer-input").press("Enter")
    page.wait_for_url("**/t/**")
    wait_idle(page)
    page.goto("/")
    page.get_by_text("What should we work on?").wait_for()
    page.locator("#welcome").wait_for(state="detached")  # not a first visit any more


def _press(page, keys: str) -> None:
    page.keyboard.press(keys)
    page.wait_for_timeout(150)


def test_keyboard_only_new_chat_send_search_sidebar_sessions_and_help(page, screenshot_dir) -> None:
    page.set_viewport_size(DESKTOP)
    page.goto("/")
    page.locator("#composer-input").wait_for()
    page.wait_for_function("() => document.activeElement?.id === 'composer-input'")

    # "?" is text in the composer; outside a text field it opens the list of shortcuts.
    page.keyboard.type("?")
    assert page.locator("[role=dialog]").count() == 0
    page.keyboard.press("Backspace")
    page.keyboard.press("Tab")  # the focus leaves the composer
    _press(page, "?")
    dialog = page.locator("[role=dialog]")
    dialog.wait_for()
    listed = page.locator("#shortcuts-list").inner_text()
    for name, keys in (
        ("New chat", "Ctrl\nShift\nO"),
        ("Search chats", "Ctrl\nK"),
        ("Show or hide the chat list", "Ctrl\nShift\nS"),
        ("Focus the message box", "Shift\nEsc"),
    ):
        assert name in listed and keys in listed, (name, listed)
    page.screenshot(path=str(screenshot_dir / "h19a-shortcuts-1280.png"))
    _press(page, "Escape")
    dialog.wait_for(state="detached")

    # Shift+Esc puts the focus in the message box; Enter sends; the chat is stored.
    _press(page, "Shift+Escape")
    assert _focused_id(page) == "composer-input"
    page.keyboard.type("Write a tiny greeting module")
    page.keyboard.press("Enter")
    page.wait_for_url("**/t/**", timeout=TURN_TIMEOUT_MS)
    first_chat = page.url
    page.locator("[data-role=assistant]").first.wait_for(timeout=TURN_TIMEOUT_MS)
    wait_idle(page)
    page.wait_for_function("() => document.activeElement?.id === 'composer-input'")

    # A second session, by /handoff, typed.
    page.keyboard.type("/handoff")
    page.keyboard.press("Enter")
    page.locator("[data-session='2'].baton-divider").wait_for(timeout=TURN_TIMEOUT_MS)
    wait_idle(page)

    # The session chips are reached with Tab and pressed with Enter; the focus shows.
    chip = page.locator(".baton-chip[data-session='1']")
    for _ in range(60):
        page.keyboard.press("Tab")
        if chip.evaluate("el => el === document.activeElement"):
            break
    assert chip.evaluate("el => el === document.activeElement")
    outline = chip.evaluate("el => getComputedStyle(el).outlineStyle")
    assert outline not in ("", "none")
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    page.keyboard.press("Enter")
    # Session 1's first row is scrolled to the top of the view.
    page.wait_for_function(
        "() => { const d = document.getElementById('session-1');"
        " const top = d && d.getBoundingClientRect().top;"
        " return d && top >= 0 && top < window.innerHeight / 2; }"
    )

    # Ctrl+Shift+O: a new chat, focused.
    _press(page, "Control+Shift+O")
    page.wait_for_url("**/")
    page.wait_for_function("() => document.activeElement?.id === 'composer-input'")
    # Ctrl+K: the search box; typing filters the chats.
    _press(page, "Control+K")
    assert page.evaluate("() => document.activeElement?.closest('#thread-search, input') !== null")
    page.keyboard.type("greeting")
    page.locator("#sidebar .baton-thread-row", has_text="greeting").wait_for()
    page.keyboard.type(" nothing like it")
    page.locator("#thread-list-empty", has_text="No chat matches").wait_for()
    # Ctrl+Shift+S hides and shows the chat list, from anywhere, even the search box.
    _press(page, "Control+Shift+S")
    assert not _sidebar_visible(page)
    _press(page, "Control+K")  # search shows the list again
    assert _sidebar_visible(page)
    _press(page, "Control+Shift+S")
    _press(page, "Control+Shift+S")
    assert _sidebar_visible(page)
    # Back to the first chat with the keyboard alone: Tab to its link, Enter.
    page.locator("#thread-search input, input#thread-search").first.fill("")
    link = page.locator("#sidebar .baton-thread-link").first
    link.wait_for()
    link.focus()
    page.keyboard.press("Enter")
    page.wait_for_url(first_chat)


def _tab_to(page, locator, limit: int = 80) -> None:
    """Press Tab until ``locator`` holds the focus (keyboard only; fails if it never does)."""
    for _ in range(limit):
        if locator.evaluate("el => el === document.activeElement"):
            return
        page.keyboard.press("Tab")
    assert locator.evaluate("el => el === document.activeElement"), "never reached by Tab"


def test_keyboard_only_open_the_context_chart_and_fork_from_a_message(page) -> None:
    page.set_viewport_size(DESKTOP)
    page.goto("/")
    page.wait_for_function("() => document.activeElement?.id === 'composer-input'")
    page.keyboard.type("Write a tiny greeting module")
    page.keyboard.press("Enter")
    page.wait_for_url("**/t/**", timeout=TURN_TIMEOUT_MS)
    origin = page.url
    page.locator("[data-role=assistant]").first.wait_for(timeout=TURN_TIMEOUT_MS)
    wait_idle(page)

    # The meter is a button: Tab to it, Enter opens the chart, Escape closes it.
    _tab_to(page, page.locator("#open-context-chart"))
    page.keyboard.press("Enter")
    page.locator("#context-chart").wait_for()
    _press(page, "Escape")
    page.locator("#context-chart").wait_for(state="detached")

    # Tab to the message's "fork from here", Enter, edit, Tab to "Fork and send", Enter.
    _tab_to(page, page.locator("[data-role=user] .baton-fork").first)
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement?.id === 'fork-text'")
    page.keyboard.press("Control+A")
    page.keyboard.type("Write a tiny farewell module")
    _tab_to(page, page.locator("#fork-send"), limit=10)
    page.keyboard.press("Enter")
    page.wait_for_function(
        f"() => location.href !== {origin!r} && location.pathname.startsWith('/t/')",
        timeout=TURN_TIMEOUT_MS,
    )
    page.locator("[data-role=user]", has_text="Write a tiny farewell module").wait_for(
        timeout=TURN_TIMEOUT_MS
    )
    assert "(fork)" in page.locator("#thread-title").inner_text()
