"""A new chat's first message is answered even when its tab closes before the chat opens."""

from __future__ import annotations

import time
import uuid

from chat_app.root import root
from chat_app.services.conversation.threads import chats as thread_service
from chat_app.services.security import identity


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
    token = identity.mint_token()
    owner = identity.owner_from_token(token)
    page.context.add_cookies([{"name": identity.COOKIE_NAME, "value": token, "url": server_db.url}])
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
    page.locator("#composer-input").wait_for()
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
    store = root().store
    asked = [
        m.content
        for s in store.sessions(chats[0].id)
        for m in store.messages(s.id)
        if m.role == "user"
    ]
    assert asked == [text]  # stored once, however often the outbox sent it
    assert _replies(chats[0].id), "the message was left unanswered"
