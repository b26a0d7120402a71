"""Share links and hostile content in chromium, against the test server's database.

Threads are written through the services (in this process, on the server's SQLite file),
then read through the browser exactly as a stranger would.
"""

from __future__ import annotations

import pytest

from chat_app.services.conversation.runs import chat as chat_service
from chat_app.services.conversation.threads import chats as thread_service
from chat_app.services.conversation.threads import sharing
from tests.browser.app_server import run_async
from tests.browser.conftest import serving

OWNER = "share-test-owner"
PAYLOADS = ["<img src=x onerror=window.__pwned=1>", "<script>window.__pwned=1</script>"]


@pytest.fixture
def server_db(app_server):
    with serving(f"sqlite:///{app_server.db_path}", sim_window=3000, sim_delay=0):
        yield app_server


def say(app, thread_id: str, text: str) -> None:
    async def drain() -> None:
        async for _ in chat_service.send_message(app, OWNER, thread_id, text):
            pass

    run_async(drain())


def multi_session_thread(app, title: str = "Shared plan") -> str:
    thread_id = thread_service.create_thread(app, OWNER, title).id
    for n in range(3):
        say(app, thread_id, f"step {n}: " + "details " * 40)
    return thread_id


def open_share(page, path: str) -> None:
    page.goto(path)
    page.wait_for_selector("#timeline, #share-not-found")


def test_shared_link_shows_dividers_and_expandable_handoffs(server_db, page, app) -> None:
    thread_id = multi_session_thread(app)
    path, _ = sharing.create_link(app, OWNER, thread_id, None)

    open_share(page, path)

    assert page.locator(".baton-divider").count() >= 1
    card = page.locator("details.baton-handoff").first
    card.locator("summary.baton-handoff-summary").click()
    assert card.evaluate("el => el.open")
    assert page.locator(".baton-chips .baton-chip").count() >= 2
    assert page.locator("textarea").count() == 0  # no composer
    html = page.content()
    assert thread_id not in html
    assert 'content="noindex, nofollow"' in html


def test_revoked_link_is_not_found_and_snapshot_update_keeps_the_url(server_db, page, app) -> None:
    thread_id = thread_service.create_thread(app, OWNER, "Snapshots").id
    say(app, thread_id, "visible before")
    path, link = sharing.create_link(app, OWNER, thread_id, None)
    say(app, thread_id, "added after sharing")

    open_share(page, path)
    assert "added after sharing" not in page.inner_text("#timeline")

    sharing.update_snapshot(app, OWNER, link.id)
    assert page.goto(path).status == 200
    page.wait_for_selector("#timeline")
    assert "added after sharing" in page.inner_text("#timeline")

    sharing.revoke_link(app, OWNER, link.id)
    assert page.goto(path).status == 404  # a dead link says so to crawlers and link checkers
    page.wait_for_selector("#share-not-found")
    missing = page.inner_text("#share-not-found")
    assert page.goto("/share/never-issued-token").status == 404
    page.wait_for_selector("#share-not-found")
    assert page.inner_text("#share-not-found") == missing


def test_script_payloads_stay_inert(server_db, page, app) -> None:
    thread_id = thread_service.create_thread(app, OWNER, PAYLOADS[0] + PAYLOADS[1]).id
    for payload in PAYLOADS:
        say(app, thread_id, f"please echo {payload}")
    path, _ = sharing.create_link(app, OWNER, thread_id, None)

    open_share(page, path)
    page.wait_for_timeout(300)
    assert page.evaluate("typeof window.__pwned") == "undefined"


def test_another_browser_cannot_read_a_thread_by_id(server_db, page, app) -> None:
    thread_id = thread_service.create_thread(app, OWNER, "Private").id
    page.goto(f"/t/{thread_id}")
    page.wait_for_selector("#not-found")
    own_missing = page.inner_text("#not-found")
    page.goto("/t/no-such-thread")
    page.wait_for_selector("#not-found")
    assert page.inner_text("#not-found") == own_missing
