"""MCP servers added on /admin, their tools called in a chat, and a broken one's problem row."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

from sqlmodel import Session

from chat_app.db import repo
from chat_app.db.engine import write_engine
from chat_app.root import root
from chat_app.services import admin as admin_service
from chat_app.services.admin import mcp_admin
from chat_app.services.conversation.threads import chats as thread_service
from chat_app.services.security import identity
from tests.agent_core.providers.servers import Reply
from tests.browser.chat_page import send, timeline, wait_idle
from tests.browser.conftest import ADMIN_PASSWORD, PROVIDER_MODEL
from tests.chat_app.apps import started_with
from tests.chat_app.identities import mint_token, owner_of

NOTES_SERVER = Path(__file__).parents[1] / "agent_core" / "mcp" / "notes_server.py"
SECRET = "sig-5e1f0a77"


def _provider_assistant() -> tuple[str, str]:
    name = f"MCP {uuid.uuid4().hex[:6]}"
    data = admin_service.validate_form(admin_service.AssistantForm(name=name, model=PROVIDER_MODEL))
    with Session(write_engine(root().engine)) as db:
        return repo.create_assistant(session=db, data=data).id, name


def _chat_as_new_owner(app, page, app_server, assistant_id: str) -> str:
    token = mint_token()
    page.context.add_cookies(
        [{"name": identity.COOKIE_NAME, "value": token, "url": app_server.url}]
    )
    thread = thread_service.create_thread(
        app, owner_of(token), "MCP chat", assistant_id=assistant_id
    )
    return f"/t/{thread.id}"


def test_a_server_added_on_admin_lends_its_tool_to_the_chat(
    server_db, page, provider_script, screenshot_dir, app
) -> None:
    assistant_id, name = _provider_assistant()
    page.goto("/admin")
    page.locator("#admin-password").fill(ADMIN_PASSWORD)
    page.locator("#admin-password").press("Enter")
    page.locator(".admin-assistant", has_text=name).click()
    page.locator("#admin-save").wait_for()
    page.locator("#mcp-servers", has_text="No MCP servers.").wait_for()

    page.locator("#mcp-name").fill("my notes")
    page.locator("#mcp-target").fill(f"{sys.executable} {NOTES_SERVER}")
    page.locator("#mcp-add").click()
    page.locator("#mcp-error", has_text="Server name must be").wait_for()

    page.locator("#mcp-name").fill("notes")
    page.locator("#mcp-target").fill(f"{sys.executable} {NOTES_SERVER}")
    page.locator("#mcp-secrets").fill(f"NOTES_SIGNATURE={SECRET}")
    page.locator("#mcp-add").click()
    page.locator("#mcp-notice", has_text="Server notes added").wait_for()
    server = page.locator(".mcp-server", has_text="notes")
    assert "NOTES_SIGNATURE (set, hidden)" in server.inner_text()
    assert page.locator("#mcp-secrets").input_value() == ""  # the form forgets the secret
    server.get_by_role("button", name="Check").click()
    page.locator("#mcp-notice", has_text="notes works: 3 tools").wait_for()
    assert SECRET not in page.content()
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.locator("#mcp-servers").screenshot(path=str(screenshot_dir / f"mcp-admin-{width}.png"))

    provider_script.queued[:] = [
        Reply(tool_calls=[("notes_shout", {"text": "hello"})]),
        Reply(text="The server shouted back."),
    ]
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(_chat_as_new_owner(app, page, server_db, assistant_id))
    page.locator("#composer-input").wait_for()
    send(page, "Shout hello through the notes server")
    wait_idle(page)
    page.locator(
        "[data-role=assistant] .baton-markdown", has_text="The server shouted back."
    ).wait_for()
    tool = page.locator(".baton-tool", has_text="notes_shout")
    tool.locator("summary").first.click()
    assert f"HELLO (signed {SECRET})" in tool.locator(".baton-tool-result").inner_text()
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(screenshot_dir / f"mcp-chat-{width}.png"))


def test_a_server_that_cannot_start_is_a_problem_in_the_chat_and_the_reply_still_comes(
    server_db, page, provider_script, screenshot_dir, app
) -> None:
    assistant_id, _ = _provider_assistant()
    app = started_with(app, admin_password=ADMIN_PASSWORD)  # as the server was started
    grant = admin_service.login(app, ADMIN_PASSWORD, client="127.0.0.1")
    mcp_admin.add_mcp_server(
        app,
        grant,
        assistant_id,
        mcp_admin.McpServerForm(
            name="broken",
            transport="stdio",
            target=f"{sys.executable} -c 'raise SystemExit(3)'",
            secrets=f"BROKEN_TOKEN={SECRET}",
        ),
    )
    provider_script.queued[:] = [Reply(text="Answered without the broken server.")]

    page.goto(_chat_as_new_owner(app, page, server_db, assistant_id))
    page.locator("#composer-input").wait_for()
    send(page, "Hello")
    wait_idle(page)
    page.locator(
        "[data-role=assistant] .baton-markdown", has_text="Answered without the broken server."
    ).wait_for()
    problem = page.locator(".baton-marker-problem", has_text="MCP server 'broken'")
    problem.wait_for()
    assert "could not be used" in problem.inner_text()
    page.screenshot(path=str(screenshot_dir / "mcp-problem-1280.png"))
    # A row of the chat, not a passing toast: a reload shows it where it happened.
    page.reload()
    page.locator(
        "[data-role=assistant] .baton-markdown", has_text="Answered without the broken server."
    ).wait_for()
    assert page.locator(".baton-marker-problem", has_text="MCP server 'broken'").count() == 1
    kinds = [kind for kind, _ in timeline(page)]
    assert kinds[-3:] == ["user", "marker", "assistant"]  # after the message it answers
    assert SECRET not in page.content()
