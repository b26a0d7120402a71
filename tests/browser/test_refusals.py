"""A refused message keeps its text in the composer, with the reason in the user's words.

Messages refused for their size are offered as a file instead: ``test_paste_as_file.py``.
"""

from __future__ import annotations

from chat_app.root import root
from tests.browser.chat_page import paste, start_chat


def _refused(page, text: str, reason: str) -> None:
    paste(page, text)
    page.locator("#composer-input").press("Enter")
    page.wait_for_selector(f"[data-sonner-toast] >> text={reason}")
    page.wait_for_function(
        "(n) => document.getElementById('composer-input').value.length === n", arg=len(text)
    )
    assert page.locator("#composer-input").input_value() == text
    assert page.locator("[data-role=user]").count() == 0


def test_a_message_of_zero_width_spaces_is_refused_and_kept(page) -> None:
    start_chat(page)
    _refused(page, "\u200b\u200b\u200b", "invisible characters")
    page.wait_for_timeout(300)
    assert page.locator("#thread-title").inner_text().strip() == "New chat"


def test_a_chat_whose_assistant_cannot_run_opens_with_a_banner_and_keeps_the_message(
    server_db, page, app
) -> None:
    from sqlmodel import Session

    from chat_app.db import repo
    from chat_app.db.engine import write_engine
    from chat_app.db.models import AssistantCreate
    from chat_app.services.conversation.threads import chats as thread_service
    from chat_app.services.security import identity
    from tests.chat_app.identities import mint_token, owner_of

    with Session(write_engine(root().engine)) as db:
        assistant_id = repo.create_assistant(
            session=db, data=AssistantCreate(name="Typo", model="foo:bar")
        ).id
    token = mint_token()
    thread_id = thread_service.create_thread(
        app, owner_of(token), "Typo", assistant_id=assistant_id
    ).id
    page.context.add_cookies([{"name": identity.COOKIE_NAME, "value": token, "url": server_db.url}])
    page.goto(f"/t/{thread_id}")
    page.wait_for_selector("#assistant-problem >> text=Unknown model provider 'foo'")
    box = page.locator("#composer-input")
    box.fill("Keep this one")
    box.press("Enter")
    page.wait_for_selector("[data-queued=true] >> text=Keep this one")
    page.wait_for_selector("[data-sonner-toast] >> text=Your message is kept")
    page.wait_for_function("() => document.getElementById('composer-input').value === ''")
    assert [p.content for p in root().store.pending(thread_id)] == ["Keep this one"]


def test_an_unknown_command_is_not_sent_and_is_kept(page) -> None:
    start_chat(page)
    _refused(page, "/hlep with the parser", "is not a command")
