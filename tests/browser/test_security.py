"""Identity, hostile content and the admin guard, as a browser sees them."""

from __future__ import annotations

import pytest

from agent_core.records import NewMessage
from chat_app.services import identity, runtime
from chat_app.services import threads as thread_service
from tests.browser.conftest import ADMIN_PASSWORD, SECRET_KEY

PAYLOADS = ["<img src=x onerror=window.__pwned=1>", "<script>window.__pwned=1</script>",
            "<svg onload=window.__pwned=1>", "[link](javascript:window.__pwned=1)"]
EVIL = " ".join(PAYLOADS)


@pytest.fixture
def server_db(app_server, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("REFLEX_DB_URL", f"sqlite:///{app_server.db_path}")
    monkeypatch.setenv("BATON_SECRET_KEY", SECRET_KEY)
    identity.secret_key.cache_clear()
    runtime._store_for.cache_clear()
    yield app_server
    identity.secret_key.cache_clear()
    runtime._store_for.cache_clear()


def _login_as(page, app_server, owner_token: str) -> None:
    page.context.add_cookies([{"name": identity.COOKIE_NAME, "value": owner_token,
                               "url": app_server.url}])


def _hostile_thread(owner: str) -> str:
    """A two-session thread with payloads in the title, messages, tool I/O and the handoff."""
    thread = thread_service.create_thread(owner, f"Title {EVIL}")
    store = runtime.store()
    session = store.current_session(thread.id)
    store.append(thread.id, session.id, [
        NewMessage(role="user", content=f"user says {EVIL}"),
        NewMessage(role="assistant", content=f"assistant says {EVIL}", tool_calls=[
            {"name": "run_command", "args": {"command": f"echo {EVIL}"}, "id": "call-1"}]),
        NewMessage(role="tool", content=f"output {EVIL}\n[exit status 0]", tool_call_id="call-1",
                   name="run_command"),
    ])
    handoff = {
        "session_number": 1, "trigger": "manual", "utilization": 0.5, "model": "simulator",
        "created_at": "2026-01-01T00:00:00Z", "focus": EVIL, "completed_work": [EVIL],
        "in_progress": [EVIL], "remaining_tasks": [EVIL], "key_decisions": [EVIL],
        "files_modified": [{"path": "a<script>b.py", "verified": False, "evidence": None}],
        "current_state_summary": EVIL, "open_todos": [], "pinned_files": [], "previous_handoff": None,
    }
    store.commit_reset(thread.id, old_session_id=session.id, trigger="manual", utilization=0.5,
                       model="simulator", handoff=handoff, handoff_path="HANDOFF-1.md",
                       handoff_markdown="x", context=[NewMessage(role="handoff", content="h")])
    store.append(thread.id, store.current_session(thread.id).id,
                 [NewMessage(role="assistant", content=f"after reset {EVIL}")])
    return thread.id


def test_identity_is_a_signed_http_only_cookie(server_db, page) -> None:
    page.goto("/")
    page.wait_for_selector("#new-chat, .baton-page")
    cookies = {c["name"]: c for c in page.context.cookies()}
    assert cookies[identity.COOKIE_NAME]["httpOnly"] is True
    assert identity.owner_from_token(cookies[identity.COOKIE_NAME]["value"]) is not None
    assert identity.COOKIE_NAME not in page.evaluate("document.cookie")


def test_a_forged_cookie_gets_no_access(server_db, page) -> None:
    token = identity.mint_token()
    owner = identity.owner_from_token(token)
    thread_id = thread_service.create_thread(owner, "Private").id
    forged = owner + "." + "A" * 43
    _login_as(page, server_db, forged)
    page.goto(f"/t/{thread_id}")
    page.wait_for_selector("#not-found")
    _login_as(page, server_db, token)
    page.goto(f"/t/{thread_id}")
    page.wait_for_selector("#timeline")


def test_payloads_stay_inert_on_the_chat_and_share_pages(server_db, page) -> None:
    from chat_app.services import sharing

    token = identity.mint_token()
    owner = identity.owner_from_token(token)
    thread_id = _hostile_thread(owner)
    _login_as(page, server_db, token)
    page.goto(f"/t/{thread_id}")
    page.wait_for_selector("#timeline")
    for summary in page.locator("details summary").all():  # open every tool row and card
        summary.click()
    page.wait_for_timeout(300)
    body = page.inner_text("body")
    assert "<script>window.__pwned=1</script>" in body  # shown as text, not run
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.locator("a[href^='javascript:']").count() == 0

    page.goto("/")
    page.wait_for_selector(".baton-page")
    assert page.evaluate("typeof window.__pwned") == "undefined"

    path, _ = sharing.create_link(owner, thread_id, None)
    page.goto(path)
    page.wait_for_selector("#timeline")
    for summary in page.locator("details summary").all():
        summary.click()
    page.wait_for_timeout(300)
    assert page.evaluate("typeof window.__pwned") == "undefined"


def test_admin_needs_the_password(server_db, page) -> None:
    page.goto("/admin")
    page.locator("#admin-password").fill("wrong")
    page.locator("#admin-password").press("Enter")
    page.wait_for_selector("#admin-error")
    assert page.locator("#admin-save").count() == 0
    page.locator("#admin-password").fill(ADMIN_PASSWORD)
    page.locator("#admin-password").press("Enter")
    page.wait_for_selector("#admin-save")
    assert ADMIN_PASSWORD not in page.content()
