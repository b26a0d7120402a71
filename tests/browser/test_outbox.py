"""Nothing typed is lost between Enter and the server storing it, and nothing is stored twice."""

from __future__ import annotations

import json
import re
import time
import uuid

from playwright.sync_api import expect

from chat_app.root import root
from chat_app.services.conversation.threads import chats as thread_service
from chat_app.services.security import identity
from tests.browser.chat_page import start_chat, user_messages, wait_idle, wait_interactive
from tests.chat_app.identities import mint_token, owner_of

OUTBOX = "baton-outbox"


def _owned_thread(app, page, app_server) -> str:
    token = mint_token()
    owner = owner_of(token)
    page.context.add_cookies(
        [{"name": identity.COOKIE_NAME, "value": token, "url": app_server.url}]
    )
    return thread_service.create_thread(app, owner, "Outbox").id


def _leave_in_outbox(page, entries: list[dict]) -> None:
    page.goto("/")
    page.wait_for_selector(".baton-page")
    page.evaluate(
        "([key, value]) => localStorage.setItem(key, value)", [OUTBOX, json.dumps(entries)]
    )


def _outbox(page) -> list:
    return json.loads(page.evaluate("(key) => localStorage.getItem(key) || '[]'", OUTBOX))


def test_a_message_never_acknowledged_is_sent_again_when_the_chat_opens(
    server_db, page, app
) -> None:
    thread_id = _owned_thread(app, page, server_db)
    # Enter was pressed, then the backend died before storing it: only the browser has it.
    _leave_in_outbox(
        page,
        [
            {
                "id": uuid.uuid4().hex,
                "thread": thread_id,
                "text": "Plan a CSV parser",
                "at": int(time.time() * 1000) - 60_000,
            }
        ],
    )
    page.goto(f"/t/{thread_id}")
    page.wait_for_selector("[data-role=user] >> text=Plan a CSV parser")
    wait_idle(page)
    page.wait_for_selector("[data-role=assistant]")
    page.wait_for_function("(key) => (localStorage.getItem(key) || '[]') === '[]'", arg=OUTBOX)
    page.reload()
    page.wait_for_selector("[data-role=assistant]")
    page.wait_for_timeout(1000)  # the outbox had its chance to send anything again
    assert user_messages(page) == ["Plan a CSV parser"]


def test_a_message_stored_before_its_acknowledgement_was_lost_is_not_stored_twice(
    server_db, page, app
) -> None:
    thread_id = _owned_thread(app, page, server_db)
    store = root().store
    client_id = uuid.uuid4().hex
    store.enqueue_pending(thread_id, "Stored once", client_id=client_id)
    store.deliver_pending(thread_id, store.current_session(thread_id).id)
    _leave_in_outbox(
        page,
        [
            {
                "id": client_id,
                "thread": thread_id,
                "text": "Stored once",
                "at": int(time.time() * 1000) - 60_000,
            }
        ],
    )
    page.goto(f"/t/{thread_id}")
    page.wait_for_selector("[data-role=user] >> text=Stored once")
    page.wait_for_function("(key) => (localStorage.getItem(key) || '[]') === '[]'", arg=OUTBOX)
    page.wait_for_timeout(500)
    assert user_messages(page) == ["Stored once"]
    assert store.pending(thread_id) == []


def test_enter_twice_sends_once_and_the_composer_empties_when_stored(page) -> None:
    start_chat(page)
    box = page.locator("#composer-input")
    box.fill("Only once, please")
    box.press("Enter")
    box.press("Enter")
    page.wait_for_selector("[data-role=user] >> text=Only once, please")
    page.wait_for_function("() => document.getElementById('composer-input').value === ''")
    wait_idle(page)
    assert user_messages(page) == ["Only once, please"]
    assert _outbox(page) == []


def test_a_send_lost_in_flight_is_sent_again_and_stored_once(page) -> None:
    dropped: list[str] = []

    def lose_the_first_send(ws) -> None:
        server = ws.connect_to_server()

        def from_page(message) -> None:
            if (
                isinstance(message, str)
                and '_state.submit"' in message
                and "Lost in flight" in message
                and not dropped
            ):
                dropped.append(message)  # the backend died as this frame arrived
                return
            server.send(message)

        ws.on_message(from_page)

    page.route_web_socket(re.compile(r".*/_event.*"), lose_the_first_send)
    start_chat(page, "Hello")  # the chat's page, where sends go through the chat's submit
    wait_idle(page)
    page.wait_for_timeout(1000)  # the chat's opening look at the outbox is over
    box = page.locator("#composer-input")
    box.fill("Lost in flight")
    box.press("Enter")
    page.wait_for_timeout(1500)
    assert dropped and user_messages(page) == ["Hello"]
    assert box.input_value() == "Lost in flight"  # nothing acknowledged it: the text stays
    page.wait_for_selector("[data-role=user] >> text=Lost in flight", timeout=30_000)
    page.wait_for_function("() => document.getElementById('composer-input').value === ''")
    wait_idle(page)
    assert user_messages(page) == ["Hello", "Lost in flight"]
    assert len(dropped) == 1


def test_a_command_or_refused_text_left_in_the_outbox_is_never_sent(server_db, page, app) -> None:
    thread_id = _owned_thread(app, page, server_db)
    old = int(time.time() * 1000) - 60_000
    _leave_in_outbox(
        page,
        [
            {"id": uuid.uuid4().hex, "thread": thread_id, "text": "/hlep me", "at": old},
            {"id": uuid.uuid4().hex, "thread": thread_id, "text": "\u200b", "at": old},
        ],
    )
    page.goto(f"/t/{thread_id}")
    page.locator("#composer-input").wait_for()
    page.wait_for_function("(key) => (localStorage.getItem(key) || '[]') === '[]'", arg=OUTBOX)
    page.wait_for_timeout(500)
    assert user_messages(page) == []


def _composer_shows(page, text: str, timeout: int = 10_000) -> None:
    page.wait_for_function(
        "(text) => document.querySelector('#composer-input')?.value === text",
        arg=text,
        timeout=timeout,
    )


def test_text_typed_but_not_sent_stays_with_its_chat_and_the_new_chats_draft(page) -> None:
    chat = start_chat(page, "A chat to come back to")
    wait_idle(page)
    wait_interactive(page)
    page.locator("#composer-input").fill("half a thought for this chat")
    # Another page, opened in the tab: the chat's text does not follow, and the new chat's
    # draft keeps its own.
    page.locator("#new-chat").click()
    page.wait_for_url(re.compile(r"/$"))
    _composer_shows(page, "")
    wait_interactive(page)
    page.locator("#composer-input").fill("an idea for a new chat")
    page.locator("#sidebar .baton-thread-link", has_text="A chat to come back to").click()
    page.wait_for_url(chat)
    _composer_shows(page, "half a thought for this chat")
    page.reload()
    _composer_shows(page, "half a thought for this chat")
    page.locator("#new-chat").click()
    _composer_shows(page, "an idea for a new chat")
    # Sent, the text is the outbox's, not a draft: the chat opens with an empty box.
    page.locator("#composer-input").press("Enter")
    page.wait_for_url("**/t/**")
    page.locator("#new-chat").click()
    page.wait_for_url(re.compile(r"/$"))
    _composer_shows(page, "")


# Types into the composer just before the tab's address changes to a chat, as a user typing
# while a new chat's first message opens its chat: that box is about to be replaced.
TYPE_AS_THE_CHAT_OPENS = """
const original = window.history.pushState;
window.history.pushState = function (...args) {
  const box = document.getElementById('composer-input');
  const url = String(args[2] || '');
  if (box && url.includes('/t/') && !window.__typedAsItOpened) {
    window.__typedAsItOpened = true;
    const setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set;
    setter.call(box, box.value + 'and then this');
    box.dispatchEvent(new Event('input', {bubbles: true}));
  }
  return original.apply(this, args);
};
"""


def test_text_typed_as_a_new_chat_opens_goes_into_that_chat(page) -> None:
    page.add_init_script(TYPE_AS_THE_CHAT_OPENS)
    start_chat(page, "The first message of a chat")
    _composer_shows(page, "and then this")
    assert page.evaluate("window.__typedAsItOpened") is True
    page.locator("#composer-input").press("Enter")
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-role=user] .baton-markdown')]"
        ".some(e => e.innerText.trim() === 'and then this')"
    )
    assert user_messages(page) == ["The first message of a chat", "and then this"]
    # The draft the text was typed in starts empty on its next visit.
    page.locator("#new-chat").click()
    page.wait_for_url(re.compile(r"/$"))
    _composer_shows(page, "")


def test_a_drafts_text_is_never_sent_with_the_composer_of_the_chat_being_left(page) -> None:
    """Right after the address changes to the new chat's draft, the chat's page still shows
    its composer until the draft's page renders (seconds on a slow machine). The draft's
    text was put into that composer, and Enter sent it into the chat being left."""
    start_chat(page, "A chat to come back to")
    wait_idle(page)
    wait_interactive(page)
    page.locator("#new-chat").click()
    page.wait_for_url(re.compile(r"/$"))
    wait_interactive(page)
    page.locator("#composer-input").fill("an idea for a new chat")
    page.locator("#sidebar .baton-thread-link", has_text="A chat to come back to").click()
    page.wait_for_url("**/t/**")
    chat = page.url
    slow = page.context.new_cdp_session(page)
    slow.send("Emulation.setCPUThrottlingRate", {"rate": 8})  # a slow machine
    page.reload()
    page.locator("#new-chat").click()
    _composer_shows(page, "an idea for a new chat")
    wait_interactive(page)
    page.locator("#composer-input").press("Enter")
    slow.send("Emulation.setCPUThrottlingRate", {"rate": 1})
    page.wait_for_url(lambda url: "/t/" in url and url != chat)
    expect(page.locator("[data-role=user] .baton-markdown")).to_have_text(
        ["an idea for a new chat"]
    )
