"""Identity, hostile content, other origins, stolen tokens and credentials, as a browser sees them."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from sqlmodel import Session

from agent_core import NewMessage
from chat_app.db import repo
from chat_app.db.engine import write_engine
from chat_app.root import root
from chat_app.services import admin as admin_service
from chat_app.services.conversation.threads import chats as thread_service
from chat_app.services.security import identity
from tests.agent_core.providers.servers import Failure, Reply
from tests.browser.chat_page import send, submit, wait_idle
from tests.browser.conftest import (
    ADMIN_PASSWORD,
    PROVIDER_MODEL,
    PROVIDER_URL_PASSWORD,
    PROVIDER_URL_QUERY_KEY,
)
from tests.chat_app.identities import mint_token, owner_of

# Loopback, never served: anything the page asks of it is recorded and aborted.
OUTSIDE = "http://127.0.0.2:9"
PAYLOADS = [
    "<img src=x onerror=window.__pwned=1>",
    "<script>window.__pwned=1</script>",
    "<svg onload=window.__pwned=1>",
    "[link](javascript:window.__pwned=1)",
    "[data link](data:text/html,<script>window.__pwned=1</script>)",
    '<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>',
    '<meta http-equiv="refresh" content="0;url=/?pwned=meta">',
    "<style>body{visibility:hidden}</style>",
    f'<base href="{OUTSIDE}/">',
    f'<form action="{OUTSIDE}/steal" method="post"><button id="pwn-form">Go</button></form>',
    f"![pixel]({OUTSIDE}/pixel.png)",
]
EVIL = "\n\n".join(PAYLOADS)
SECRETS = [PROVIDER_URL_PASSWORD, PROVIDER_URL_QUERY_KEY]

# Counts Content-Security-Policy violations: the page's own code must cause none.
WATCH_CSP = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation',
  e => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));
"""


@pytest.fixture
def outside_requests(page) -> list[str]:
    """Requests the page makes to a host other than Baton's (all aborted)."""
    seen: list[str] = []

    def refuse(route) -> None:
        seen.append(route.request.url)
        route.abort()

    page.context.route(f"{OUTSIDE}/**", refuse)
    page.add_init_script(WATCH_CSP)
    return seen


def _login_as(page, app_server, owner_token: str) -> None:
    page.context.add_cookies(
        [{"name": identity.COOKIE_NAME, "value": owner_token, "url": app_server.url}]
    )


def _new_owner() -> tuple[str, str]:
    token = mint_token()
    return token, owner_of(token)


def _hostile_thread(app, owner: str) -> str:
    """A two-session thread with payloads in the title, messages, tool I/O and the handoff."""
    thread = thread_service.create_thread(app, owner, f"Title {' '.join(PAYLOADS)}")
    store = root().store
    session = store.current_session(thread.id)
    store.append(
        thread.id,
        session.id,
        [
            NewMessage(role="user", content=f"user says\n\n{EVIL}"),
            NewMessage(
                role="assistant",
                content=f"assistant says\n\n{EVIL}",
                tool_calls=[
                    {"name": "run_command", "args": {"command": f"echo {EVIL}"}, "id": "call-1"}
                ],
            ),
            NewMessage(
                role="tool",
                content=f"output {EVIL}\n[exit status 0]",
                tool_call_id="call-1",
                name="run_command",
            ),
        ],
    )
    handoff = {
        "session_number": 1,
        "trigger": "manual",
        "utilization": 0.5,
        "model": "simulator",
        "created_at": "2026-01-01T00:00:00Z",
        "focus": EVIL,
        "completed_work": [EVIL],
        "in_progress": [EVIL],
        "remaining_tasks": [EVIL],
        "key_decisions": [EVIL],
        "files_modified": [{"path": "a<script>b.py", "verified": False, "evidence": None}],
        "current_state_summary": EVIL,
        "open_todos": [],
        "pinned_files": [],
        "previous_handoff": None,
    }
    store.commit_reset(
        thread.id,
        old_session_id=session.id,
        trigger="manual",
        utilization=0.5,
        model="simulator",
        handoff=handoff,
        handoff_path="HANDOFF-1.md",
        handoff_markdown="x",
        context=[NewMessage(role="handoff", content="h")],
    )
    store.append(
        thread.id,
        store.current_session(thread.id).id,
        [NewMessage(role="assistant", content=f"after reset\n\n{EVIL}")],
    )
    return thread.id


def _provider_thread(app, owner: str) -> str:
    """A chat whose assistant answers through the loopback OpenAI-compatible provider."""
    data = admin_service.validate_form(
        admin_service.AssistantForm(name=f"Provider {uuid.uuid4().hex[:6]}", model=PROVIDER_MODEL)
    )
    with Session(write_engine(root().engine)) as db:
        assistant = repo.create_assistant(session=db, data=data)
        assistant_id = assistant.id
    return thread_service.create_thread(app, owner, "Provider chat", assistant_id=assistant_id).id


def _open_everything(page) -> None:
    for summary in page.locator("details summary").all():  # every tool row and handoff card
        summary.click()


def _assert_inert(page, outside_requests: list[str]) -> None:
    # Longer than the meta refresh's 0 s and an image load; every payload has had its chance.
    page.wait_for_timeout(1500)
    found = page.evaluate(
        """(outside) => ({
             pwned: typeof window.__pwned,
             url: location.href,
             hostile: document.querySelectorAll(
               'base, #timeline iframe, #timeline meta, #timeline form, #timeline object, '
               + '#timeline embed, #timeline .baton-markdown style, '
               + '#timeline .baton-markdown script, #timeline .baton-markdown svg').length,
             badLinks: document.querySelectorAll('a[href^="javascript:"], a[href^="data:"]').length,
             outsideImages: [...document.images].filter(i => i.src.startsWith(outside)).length,
             hidden: getComputedStyle(document.body).visibility,
             csp: window.__cspViolations || [],
           })""",
        OUTSIDE,
    )
    assert found["pwned"] == "undefined"
    assert "pwned" not in found["url"]
    assert found["hostile"] == 0
    assert found["badLinks"] == 0
    assert found["outsideImages"] == 0
    assert found["hidden"] == "visible"
    assert outside_requests == []
    assert found["csp"] == []  # nothing was even attempted, and the page's own code is allowed


def test_identity_is_a_signed_http_only_cookie(server_db, page) -> None:
    page.goto("/")
    page.wait_for_selector("#new-chat, .baton-page")
    cookies = {c["name"]: c for c in page.context.cookies()}
    assert cookies[identity.COOKIE_NAME]["httpOnly"] is True
    assert owner_of(cookies[identity.COOKIE_NAME]["value"]) is not None
    assert identity.COOKIE_NAME not in page.evaluate("document.cookie")


def test_a_forged_cookie_gets_no_access(server_db, page, app) -> None:
    token, owner = _new_owner()
    thread_id = thread_service.create_thread(app, owner, "Private").id
    forged = owner + "." + "A" * 43
    _login_as(page, server_db, forged)
    page.goto(f"/t/{thread_id}")
    page.wait_for_selector("#not-found")
    _login_as(page, server_db, token)
    page.goto(f"/t/{thread_id}")
    page.wait_for_selector("#timeline")


def test_stored_payloads_stay_inert_on_the_chat_page_after_reload_and_when_shared(
    server_db, page, outside_requests, app
) -> None:
    from chat_app.services.conversation.threads import sharing

    token, owner = _new_owner()
    thread_id = _hostile_thread(app, owner)
    _login_as(page, server_db, token)
    page.goto(f"/t/{thread_id}")
    page.wait_for_selector("#timeline .baton-message")
    _open_everything(page)
    body = page.inner_text("body")
    assert '<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>' in body  # text, not HTML
    assert "image: pixel" in body  # the outside image became a link
    _assert_inert(page, outside_requests)

    page.reload()
    page.wait_for_selector("#timeline .baton-message")
    _open_everything(page)
    _assert_inert(page, outside_requests)

    # The handoff download is the Markdown file, with the payloads as text.
    card = page.locator(".baton-handoff").first
    with page.expect_download() as download_info:
        card.locator(".baton-handoff-download").click()
    download = download_info.value
    assert download.suggested_filename.endswith(".md")
    saved = Path(download.path()).read_text(encoding="utf-8")
    assert saved.startswith("<!-- baton-handoff"), saved[:80]  # Markdown, not a JSON literal
    assert "<iframe srcdoc=" in saved

    path, _ = sharing.create_link(app, owner, thread_id, None)
    page.goto(path)
    page.wait_for_selector("#timeline .baton-message")
    _open_everything(page)
    _assert_inert(page, outside_requests)
    # Nothing was blocked in the page, so nothing was reported back to the server as an error.
    assert "[SID:" not in server_db.log_path.read_text(errors="replace")


def test_live_payloads_from_the_user_and_the_model_stay_inert(
    server_db, page, outside_requests, provider_script, app
) -> None:
    token, owner = _new_owner()
    thread_id = _provider_thread(app, owner)
    provider_script.queued.append(Reply(text=f"model says\n\n{EVIL}"))
    _login_as(page, server_db, token)
    page.goto(f"/t/{thread_id}")
    page.locator("#composer-input").wait_for()
    # Not chat_page.send: the rendered text differs from the typed one (the image is a link).
    submit(page, f"user says {PAYLOADS[5]} {PAYLOADS[6]} {PAYLOADS[10]}")
    page.wait_for_selector("[data-role=user] .baton-markdown >> text=user says")
    wait_idle(page)
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-role=assistant] .baton-markdown')]"
        ".some(e => e.innerText.includes('model says'))"
    )
    _assert_inert(page, outside_requests)


@pytest.fixture
def other_origin(app_server) -> Iterator[str]:
    """A real page on another port of the same host: same site as the app, another origin
    (a page fulfilled by Playwright would not count as a local page for chromium)."""

    class AttackPage(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            body = b"<!doctype html><title>another port</title>"
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    host = urlsplit(app_server.url).hostname or ""  # the app's loopback address
    server = ThreadingHTTPServer((host, 0), AttackPage)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://{host}:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_page_on_another_port_cannot_use_the_victims_socket(
    server_db, page, other_origin
) -> None:
    token, owner = _new_owner()
    _login_as(page, server_db, token)
    app = server_db.url
    # The handshake Reflex's own client makes; the browser adds the cookie and the Origin.
    probe = """(app) => new Promise(resolve => {
        const ws = new WebSocket(app.replace('http', 'ws')
          + '/_event/?EIO=4&transport=websocket&token=' + crypto.randomUUID());
        ws.onopen = () => { ws.close(); resolve('open'); };
        ws.onerror = () => resolve('refused');
      })"""

    page.goto(f"{other_origin}/")
    assert page.evaluate(probe, app) == "refused"
    assert f"refused a websocket request to /_event/ from origin '{other_origin}'" in (
        server_db.log_path.read_text(errors="replace")
    )

    page.goto("/")  # the app's own origin, same cookie: the socket opens
    page.wait_for_selector(".baton-page")
    assert page.evaluate(probe, app) == "open"


def test_a_client_token_presented_by_another_browser_opens_an_empty_state(
    server_db, browser, app
) -> None:
    token, owner = _new_owner()
    secret = f"victim-secret-{uuid.uuid4().hex}"
    thread_id = thread_service.create_thread(app, owner, "Victim's chat").id
    store = root().store
    store.append(
        thread_id, store.current_session(thread_id).id, [NewMessage(role="user", content=secret)]
    )

    victim = browser.new_context(base_url=server_db.url)
    victim.add_cookies([{"name": identity.COOKIE_NAME, "value": token, "url": server_db.url}])
    victim_page = victim.new_page()
    victim_page.goto(f"/t/{thread_id}")
    victim_page.wait_for_selector(f"text={secret}")
    client_token = victim_page.evaluate("sessionStorage.getItem('token')")
    assert client_token
    victim.close()  # the tab is gone; its state stays on the server

    attacker = browser.new_context(base_url=server_db.url)
    attacker.add_init_script(f"sessionStorage.setItem('token', {client_token!r})")
    attacker_page = attacker.new_page()
    frames: list[str] = []
    attacker_page.on(
        "websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload)))
    )
    attacker_page.goto("/")
    attacker_page.wait_for_selector(".baton-page")
    attacker_page.wait_for_timeout(1500)
    assert attacker_page.evaluate("sessionStorage.getItem('token')") == client_token
    assert frames  # the socket did talk
    assert not any(secret in frame for frame in frames)
    assert not any(thread_id in frame for frame in frames)
    assert secret not in attacker_page.content()
    attacker.close()


def test_credentials_in_the_provider_url_reach_no_page_toast_or_log(
    server_db, page, provider_script, fake_provider, app
) -> None:
    token, owner = _new_owner()
    thread_id = _provider_thread(app, owner)
    _login_as(page, server_db, token)
    page.goto(f"/t/{thread_id}")
    page.locator("#composer-input").wait_for()
    send(page, "hello provider")
    wait_idle(page)
    page.wait_for_selector("text=The provider answers.")
    port = fake_provider.url.rsplit(":", 1)[1]
    assert f"fake-model @ 127.0.0.1:{port}" in page.inner_text("#timeline")

    # A gateway that echoes the URL it was called with, credentials included.
    echoed = (
        f"http://baton:{PROVIDER_URL_PASSWORD}@127.0.0.1:{port}/v1/chat/completions"
        f"?api_key={PROVIDER_URL_QUERY_KEY}"
    )
    provider_script.queued.append(
        Failure(
            400,
            {
                "error": {
                    "message": f"Invalid credentials for {echoed}",
                    "type": "invalid_request_error",
                }
            },
        )
    )
    send(page, "again")
    toast = page.locator("[data-sonner-toast]").first
    toast.wait_for()
    wait_idle(page)
    assert "Invalid credentials for http://127.0.0.1" in toast.inner_text()
    for secret in SECRETS:
        assert secret not in toast.inner_text()
        assert secret not in page.content()

    page.goto("/admin")
    page.locator("#admin-password").fill(ADMIN_PASSWORD)
    page.locator("#admin-password").press("Enter")
    page.wait_for_selector("#admin-save")
    page.locator(".admin-assistant", has_text="Provider").last.click()
    page.wait_for_function(
        f"() => document.querySelector('input[name=model]')?.value === {PROVIDER_MODEL!r}"
    )
    for secret in SECRETS:
        assert secret not in page.content()

    log = server_db.log_path.read_text(errors="replace")
    for secret in SECRETS:
        assert secret not in log


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


def test_message_markdown_keeps_line_breaks_opens_links_aside_and_borders_tables(
    server_db, page, app
) -> None:
    token, owner = _new_owner()
    thread_id = thread_service.create_thread(app, owner, "Markdown").id
    store = root().store
    store.append(
        thread_id,
        store.current_session(thread_id).id,
        [
            NewMessage(
                role="assistant",
                content="first line\nsecond line\n\n[docs](https://example.com/docs)\n\n"
                "| a | b |\n|---|---|\n| 1 | 2 |",
            )
        ],
    )
    _login_as(page, server_db, token)
    page.goto(f"/t/{thread_id}")
    bubble = page.locator("[data-role=assistant] .baton-markdown").first
    bubble.wait_for()
    assert bubble.locator("br").count() >= 1
    link = bubble.locator("a", has_text="docs")
    assert link.get_attribute("target") == "_blank"
    assert "noopener" in (link.get_attribute("rel") or "")
    border = bubble.locator("td").first.evaluate("el => getComputedStyle(el).borderTopStyle")
    assert border == "solid"
