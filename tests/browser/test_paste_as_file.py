"""A message too large to send is offered as a workspace file; nothing typed is ever lost."""

from __future__ import annotations

import uuid
from pathlib import Path

from sqlmodel import Session

from chat_app.db import repo
from chat_app.db.engine import write_engine
from chat_app.db.models import AssistantCreate
from chat_app.root import root
from chat_app.services.conversation.threads import chats as thread_service
from chat_app.services.security import identity
from tests.browser.chat_page import paste, user_messages, wait_chat_loaded, wait_idle
from tests.chat_app.identities import mint_token, owner_of

# About 40 KB of log: under the byte limit, over what the simulator's 6,000-token window holds
# in one session.
SESSION_SIZED = "2026-12-01 12:00:00 INFO request served in 12 ms\n" * 800
# About 600 KB: over the 512 KB a message may be, under the 1 MB a file may be.
BYTE_SIZED = "log line with some text\n" * 25_600


def _simulator_chat(app, page, app_server) -> None:
    """A new chat on an assistant of its own on the simulator (whatever other tests made the
    default), for a new owner."""
    with Session(write_engine(root().engine)) as db:
        assistant_id = repo.create_assistant(
            session=db,
            data=AssistantCreate(name=f"Paste {uuid.uuid4().hex[:6]}", model="simulator"),
        ).id
    token = mint_token()
    page.context.add_cookies(
        [{"name": identity.COOKIE_NAME, "value": token, "url": app_server.url}]
    )
    thread = thread_service.create_thread(
        app, owner_of(token), "New chat", assistant_id=assistant_id
    )
    page.goto(f"/t/{thread.id}")
    wait_chat_loaded(page)


def _composer(page) -> str:
    return page.locator("#composer-input").input_value()


def _refused_with_offer(page, text: str, reason: str) -> None:
    paste(page, text)
    page.locator("#composer-input").press("Enter")
    page.locator("#paste-offer-reason", has_text=reason).wait_for()
    page.locator("#paste-offer-attach", has_text="Attach as pasted-1.md").wait_for()
    page.wait_for_function(
        "(n) => document.getElementById('composer-input').value.length === n", arg=len(text)
    )
    assert _composer(page) == text  # refused: the text is still there
    assert page.locator("[data-role=user]").count() == 0


def _downloaded(page, name: str) -> str:
    page.locator("#workspace-button").click()
    row = page.locator("#workspace-panel .workspace-file", has_text=name)
    with page.expect_download() as downloaded:
        row.get_by_role("button", name="Download").click()
    page.keyboard.press("Escape")
    return Path(downloaded.value.path()).read_text()


def test_a_paste_too_large_for_a_session_is_sent_as_a_file(
    server_db, page, screenshot_dir, app
) -> None:
    _simulator_chat(app, page, server_db)
    _refused_with_offer(page, SESSION_SIZED, "more than this assistant's model can take")
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(screenshot_dir / f"paste-offer-{width}.png"))
    page.set_viewport_size({"width": 1280, "height": 900})

    # Dismissed: the offer goes, the draft stays to be edited; Enter offers it again.
    page.locator("#paste-offer-dismiss").click()
    page.locator("#paste-offer").wait_for(state="detached")
    assert _composer(page) == SESSION_SIZED
    page.locator("#composer-input").press("Enter")
    page.locator("#paste-offer-attach", has_text="Attach as pasted-1.md").wait_for()
    assert _composer(page) == SESSION_SIZED

    page.locator("#paste-offer-attach").click()
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-role=user] .baton-markdown')]"
        ".some(e => e.innerText.includes('Attached: pasted-1.md'))"
    )
    wait_idle(page)
    assert page.locator("#paste-offer").count() == 0
    assert user_messages(page)[-1].endswith("Attached: pasted-1.md")
    assert page.locator("[data-role=assistant]").count() >= 1  # the agent answered it
    page.wait_for_function("() => document.getElementById('composer-input').value === ''")
    page.screenshot(path=str(screenshot_dir / "paste-sent-1280.png"))
    # The whole text is in the workspace, and stays there after a reload.
    page.reload()
    page.locator("#composer-input").wait_for()
    assert _downloaded(page, "pasted-1.md") == SESSION_SIZED  # as pasted, to the last newline


def test_a_paste_over_the_byte_limit_is_offered_too(server_db, page, app) -> None:
    _simulator_chat(app, page, server_db)
    _refused_with_offer(page, BYTE_SIZED, "the limit is 512 KB")

    page.locator("#paste-offer-attach").click()
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-role=user] .baton-markdown')]"
        ".some(e => e.innerText.includes('Attached: pasted-1.md'))"
    )
    wait_idle(page)
    page.wait_for_function("() => document.getElementById('composer-input').value === ''")
    assert _downloaded(page, "pasted-1.md") == BYTE_SIZED
