"""A new chat's first message is answered even when its tab closes before the chat opens."""

from __future__ import annotations

import time
import uuid

from playwright.sync_api import expect

from chat_app.root import root
from chat_app.services.conversation.threads import chats as thread_service
from chat_app.services.security import identity
from tests.browser.chat_page import (
    send,
    start_chat,
    submit,
    wait_composer_here,
    wait_idle,
    wait_interactive,
)
from tests.chat_app.identities import mint_token, owner_of


def _replies(thread_id: str) -> list[str]:
    store = root().store
    return [
        m.content
        for s in store.sessions(thread_id)
        for m in store.messages(s.id)
        if m.role == "assistant" and m.content and not m.tool_calls
    ]


def test_a_first_message_whose_tab_closed_before_the_chat_opened_is_answered(
    server_db, page, screenshot_dir, app
) -> None:
    owner = _signed_in(page, server_db)
    # The server's answer to the send (the outbox acknowledgement and the redirect to the new
    # chat) never reaches the tab, as when the tab closes right after Enter.
    dropped: list[str] = []

    def relay(socket) -> None:
        server = socket.connect_to_server()
        socket.on_message(lambda message: server.send(message))

        def to_page(message) -> None:
            if isinstance(message, str) and "_redirect" in message:
                dropped.append(message)
                return
            socket.send(message)

        server.on_message(to_page)

    page.route_web_socket("**/_event/**", relay)
    page.goto("/")
    wait_interactive(page)
    text = f"Name three rivers of Europe {uuid.uuid4().hex[:6]}"
    page.locator("#composer-input").fill(text)
    page.locator("#composer-input").press("Enter")
    deadline = time.monotonic() + 30
    while not dropped and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    assert dropped, "the server never sent the tab to the new chat"
    assert "/t/" not in page.url
    page.screenshot(path=str(screenshot_dir / "first-message-tab-closing.png"))
    page.close()  # the tab is gone: no page will ever open the chat

    deadline = time.monotonic() + 120
    chats = []
    while time.monotonic() < deadline:
        chats = thread_service.list_threads(app, owner)
        if chats and _replies(chats[0].id) and not root().store.pending(chats[0].id):
            break
        time.sleep(0.5)
    assert [chat.title for chat in chats] == [text]
    assert _asked(chats[0].id) == [text]  # stored once, however often the outbox sent it
    assert _replies(chats[0].id), "the message was left unanswered"


def _asked(thread_id: str) -> list[str]:
    store = root().store
    return [
        m.content
        for s in store.sessions(thread_id)
        for m in store.messages(s.id)
        if m.role == "user"
    ]


def _settled(thread_id: str, count: int, timeout: float = 120) -> list[str]:
    """The chat's user messages once ``count`` are stored, none waits to be delivered and
    the last is answered (or the time is up)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (
            len(_asked(thread_id)) >= count
            and not root().store.pending(thread_id)
            and _replies(thread_id)
        ):
            break
        time.sleep(0.5)
    return _asked(thread_id)


def _signed_in(page, server_db) -> str:
    token = mint_token()
    page.context.add_cookies([{"name": identity.COOKIE_NAME, "value": token, "url": server_db.url}])
    return owner_of(token)


def test_two_messages_sent_as_the_page_opens_go_into_one_chat(server_db, page, app) -> None:
    """Both sends leave the tab as soon as the page answers keys, before its load events have
    run (they may run between the two), and the second still goes into the chat the first
    one started."""
    owner = _signed_in(page, server_db)
    page.goto("/")
    wait_interactive(page)  # hydrated; the websocket may not be open yet
    first, second = "Start a greeting module", "And give it a test"
    for text in (first, second):
        page.locator("#composer-input").fill(text)
        page.locator("#composer-input").press("Enter")
    page.wait_for_url("**/t/**")
    chats = thread_service.list_threads(app, owner)
    assert len(chats) == 1
    assert _settled(chats[0].id, 2) == [first, second]


def test_a_new_visit_of_the_draft_starts_a_new_chat_and_its_next_message_goes_there(
    server_db, page, app
) -> None:
    """The draft's visit, not the tab, decides where a message goes: after "New chat", the
    next message starts a chat of its own (it follows the tab's earlier chat's first message,
    yet must not join that chat), and the one after it joins the new chat."""
    owner = _signed_in(page, server_db)
    start_chat(page, "Write a slugify helper")
    wait_idle(page)
    earlier = page.url
    page.locator("#new-chat").click()  # an in-page visit of the draft, not a reload
    page.wait_for_url(lambda url: "/t/" not in url)
    submit(page, "Now a CSV reader")
    page.wait_for_url(lambda url: "/t/" in url and url != earlier)
    send(page, "With a header row")
    chats = {c.title: c.id for c in thread_service.list_threads(app, owner)}
    assert set(chats) == {"Write a slugify helper", "Now a CSV reader"}
    assert _asked(chats["Write a slugify helper"]) == ["Write a slugify helper"]
    assert _settled(chats["Now a CSV reader"], 2) == ["Now a CSV reader", "With a header row"]


def test_what_is_typed_into_the_draft_while_its_chat_opens_is_that_chats(server_db, page) -> None:
    """Once the draft's first message went out the address is the new chat's, but the draft's
    composer shows until the chat's page renders (seconds on a slow machine): what is typed
    into it then belongs to the new chat and comes up in its composer, not in the next draft."""
    _signed_in(page, server_db)
    start_chat(page)
    wait_interactive(page)
    slow = page.context.new_cdp_session(page)
    slow.send("Emulation.setCPUThrottlingRate", {"rate": 8})  # a slow machine
    page.locator("#composer-input").fill("Plan a vegetable garden")
    page.locator("#composer-input").press("Enter")
    # Typed in one step once the address is the chat's, while the box is still the draft's.
    typed = page.wait_for_function(
        """(text) => {
             const box = document.querySelector('#composer-input');
             if (!location.pathname.startsWith('/t/') || !box || !box.form) return false;
             if (box.form.dataset.draft !== 'true') return 'the chat had opened already';
             const set = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set;
             set.call(box, text);
             box.dispatchEvent(new Event('input', {bubbles: true}));
             return 'typed into the draft';
           }""",
        arg="with raised beds",
        timeout=60_000,
    ).json_value()
    slow.send("Emulation.setCPUThrottlingRate", {"rate": 1})
    assert typed == "typed into the draft"
    wait_composer_here(page)
    expect(page.locator("#composer-input")).to_have_value("with raised beds")
    page.locator("#new-chat").click()
    page.wait_for_url(lambda url: "/t/" not in url)
    wait_composer_here(page)
    expect(page.locator("#composer-input")).to_have_value("")
