"""Messages stored as queued when the backend died are shown, and answered, when the chat opens."""

from __future__ import annotations

from chat_app.root import root
from chat_app.services.conversation.threads import chats as thread_service
from chat_app.services.security import identity
from tests.browser.chat_page import wait_idle
from tests.chat_app.identities import mint_token, owner_of


def test_queued_messages_left_by_a_crash_are_answered_when_the_chat_opens(
    server_db, page, app
) -> None:
    token = mint_token()
    owner = owner_of(token)
    thread_id = thread_service.create_thread(app, owner, "Left queued").id
    root().store.enqueue_pending(thread_id, "Plan a CSV parser")  # queued, never delivered

    page.context.add_cookies([{"name": identity.COOKIE_NAME, "value": token, "url": server_db.url}])
    page.goto(f"/t/{thread_id}")
    page.wait_for_selector("[data-role=user] >> text=Plan a CSV parser")
    wait_idle(page)
    page.wait_for_selector("[data-role=assistant]")
    assert page.locator("[data-role=user]").count() == 1
    assert page.locator("[data-queued=true]").count() == 0
    assert root().store.pending(thread_id) == []
