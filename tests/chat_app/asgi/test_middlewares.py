"""The ASGI middlewares around Reflex's backend, driven with plain ASGI messages."""

from __future__ import annotations

import gzip
from typing import Any

import pytest

from chat_app.asgi import OriginGuard, SecurityHeaders, StateTokenBinding
from chat_app.asgi.security_headers import inline_script_hashes
from chat_app.services.security import identity
from chat_app.services.security.web_security import state_token
from chat_app.settings import Settings
from tests.chat_app.identities import KEY, SIGNING_KEY, mint_token, owner_of

PAGE = (
    b"<html><head><script>console.log('colour mode')</script>"
    b"<script src='/assets/app.js'></script></head><body>"
    b"<script type=\"module\" async>import('/x.js')</script></body></html>"
)


@pytest.fixture
def settings(db_url: str) -> Settings:
    """The process's settings the middlewares read: no configured origins, no remote images,
    the tests' identity key."""
    return Settings(db_url=db_url, allowed_origins="", remote_images=False, secret_key=SIGNING_KEY)


@pytest.fixture(autouse=True)
def process_app(app):
    """The middlewares read the process's app (its settings and identity key)."""
    return app


class Recorder:
    """An inner app that records the scope it got and answers with ``body``."""

    def __init__(
        self,
        body: bytes = b"ok",
        content_type: bytes = b"text/plain",
        encoding: bytes | None = None,
    ) -> None:
        self.scopes: list[dict[str, Any]] = []
        self.body, self.content_type, self.encoding = body, content_type, encoding

    async def __call__(self, scope, receive, send) -> None:
        self.scopes.append(scope)
        if scope["type"] == "websocket":
            await receive()
            await send({"type": "websocket.accept"})
            return
        headers = [(b"content-type", self.content_type)]
        if self.encoding:
            headers.append((b"content-encoding", self.encoding))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        half = len(self.body) // 2
        await send({"type": "http.response.body", "body": self.body[:half], "more_body": True})
        await send({"type": "http.response.body", "body": self.body[half:]})


async def _call(app, scope: dict[str, Any]) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    incoming = [
        {"type": "websocket.connect"}
        if scope["type"] == "websocket"
        else {"type": "http.request", "body": b""}
    ]

    async def receive():
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    await app(scope, receive, send)
    return sent


def _scope(
    kind: str = "http", path: str = "/", method: str = "GET", query: bytes = b"", **headers: str
) -> dict[str, Any]:
    return {
        "type": kind,
        "path": path,
        "method": method,
        "query_string": query,
        "scheme": "ws" if kind == "websocket" else "http",
        "headers": [(k.replace("_", "-").encode(), v.encode()) for k, v in headers.items()],
    }


async def test_the_socket_refuses_another_origin_of_the_same_site():
    inner = Recorder()
    sent = await _call(
        OriginGuard(inner),
        _scope("websocket", "/_event/", host="127.0.0.1:3000", origin="http://127.0.0.1:8080"),
    )
    assert sent == [{"type": "websocket.close", "code": 1008}]
    assert inner.scopes == []


async def test_the_socket_accepts_its_own_origin_and_clients_without_one():
    inner = Recorder()
    own = await _call(
        OriginGuard(inner),
        _scope("websocket", "/_event/", host="127.0.0.1:3000", origin="http://127.0.0.1:3000"),
    )
    bare = await _call(OriginGuard(inner), _scope("websocket", "/_event/", host="127.0.0.1:3000"))
    assert own == bare == [{"type": "websocket.accept"}]


@pytest.mark.parametrize(
    ("path", "method"),
    [("/_event/", "GET"), ("/_upload", "POST"), ("/anything", "POST"), ("/x", "DELETE")],
)
async def test_state_changing_and_socket_http_routes_refuse_other_origins(path, method):
    inner = Recorder()
    sent = await _call(
        OriginGuard(inner),
        _scope(path=path, method=method, host="localhost:3000", origin="http://localhost:9999"),
    )
    assert sent[0]["status"] == 403
    assert inner.scopes == []


async def test_pages_load_from_anywhere_but_configured_hosts_refuse_rebinding(app):
    inner = Recorder()
    page = await _call(OriginGuard(inner), _scope(host="localhost:3000", origin="http://x:1"))
    assert page[0]["status"] == 200
    # Started with BATON_ALLOWED_ORIGINS=https://baton.example.com:
    configured = app.settings.model_copy(update={"allowed_origins": "https://baton.example.com"})
    rebound = await _call(
        OriginGuard(inner, settings=lambda: configured),
        _scope("websocket", "/_event/", host="evil.example:443", origin="https://evil.example"),
    )
    assert rebound == [{"type": "websocket.close", "code": 1008}]
    allowed = await _call(
        OriginGuard(inner, settings=lambda: configured),
        _scope(
            "websocket", "/_event/", host="baton.example.com", origin="https://baton.example.com"
        ),
    )
    assert allowed == [{"type": "websocket.accept"}]


async def test_the_client_token_is_replaced_by_one_bound_to_the_identity():
    cookie = mint_token()
    owner = owner_of(cookie)
    inner = Recorder()
    await _call(
        StateTokenBinding(inner),
        _scope(
            "websocket",
            "/_event/",
            query=b"EIO=4&transport=websocket&token=tab-1",
            cookie=f"{identity.COOKIE_NAME}={cookie}",
        ),
    )
    await _call(
        StateTokenBinding(inner),
        _scope(
            path="/_upload",
            method="POST",
            reflex_client_token="tab-1",
            cookie=f"{identity.COOKIE_NAME}={cookie}",
        ),
    )
    socket_scope, upload_scope = inner.scopes
    bound = state_token(owner, "tab-1", KEY)
    assert socket_scope["query_string"] == f"EIO=4&transport=websocket&token={bound}".encode()
    assert (b"reflex-client-token", bound.encode()) in upload_scope["headers"]


async def test_a_token_without_an_identity_gets_a_fresh_state_each_time():
    inner = Recorder()
    for _ in range(2):
        await _call(
            StateTokenBinding(inner), _scope("websocket", "/_event/", query=b"token=stolen-token")
        )
    first, second = (s["query_string"] for s in inner.scopes)
    assert first != second
    assert b"stolen-token" not in first


def _csp(sent: list[dict[str, Any]]) -> str | None:
    headers = dict(sent[0]["headers"])
    return headers.get(b"content-security-policy", b"").decode() or None


@pytest.mark.parametrize("encoding", [None, b"gzip"])
async def test_pages_get_a_policy_with_their_inline_scripts_by_hash(encoding):
    body = gzip.compress(PAGE) if encoding else PAGE
    inner = Recorder(body, b"text/html; charset=utf-8", encoding)
    sent = await _call(
        SecurityHeaders(inner), _scope(accept="text/html", accept_encoding="gzip, br, zstd")
    )
    policy = _csp(sent)
    hashes = inline_script_hashes(PAGE)
    assert len(hashes) == 2  # the script with a src is not inline
    for digest in hashes:
        assert f"'sha256-{digest}'" in policy
    assert b"".join(m.get("body", b"") for m in sent[1:]) == body  # the page is unchanged
    assert dict(inner.scopes[0]["headers"])[b"accept-encoding"] == b"gzip"  # never br/zstd
    assert (b"x-content-type-options", b"nosniff") in sent[0]["headers"]


async def test_a_page_sent_from_disk_is_hashed_from_the_file(tmp_path):
    page = tmp_path / "index.html"
    page.write_bytes(PAGE)

    async def pathsend_app(scope, receive, send):
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/html")],
            }
        )
        await send({"type": "http.response.pathsend", "path": str(page)})

    sent = await _call(SecurityHeaders(pathsend_app), _scope(accept="text/html"))
    assert sent[1]["type"] == "http.response.pathsend"
    assert f"'sha256-{inline_script_hashes(PAGE)[0]}'" in _csp(sent)


async def test_other_responses_pass_through_with_the_plain_headers():
    sent = await _call(SecurityHeaders(Recorder(b'{"a": 1}', b"application/json")), _scope())
    assert _csp(sent) is None
    assert (b"referrer-policy", b"same-origin") in sent[0]["headers"]
    assert len(sent) == 3  # streamed through, not buffered


@pytest.mark.parametrize(
    ("headers", "name", "secure"),
    [({}, "baton_id", False), ({"x_forwarded_proto": "https"}, "__Host-baton_id", True)],
)
async def test_the_identity_cookie_is_a_host_cookie_behind_https(headers, name, secure):
    from chat_app.asgi import IdentityCookieMiddleware

    sent = await _call(IdentityCookieMiddleware(Recorder()), _scope(**headers))
    cookie = dict(sent[0]["headers"])[b"set-cookie"].decode()
    assert cookie.startswith(f"{name}=")
    assert ("; Secure" in cookie) is secure
    # What a browser requires of a __Host- cookie: Secure, Path=/, no Domain.
    assert "; Path=/;" in cookie and "domain" not in cookie.lower()


def _forwarded_cookie(recorder: Recorder) -> str:
    return dict(recorder.scopes[-1]["headers"])[b"cookie"].decode()


async def test_a_cookie_a_sibling_subdomain_adds_after_ours_is_never_taken():
    from chat_app.asgi import IdentityCookieMiddleware, StateTokenBinding

    mine, tossed = mint_token(), mint_token()  # both validly signed
    header = f"baton_id={mine}; theme=dark; baton_id={tossed}"
    assert identity.owner_from_cookie_header(header, KEY) == owner_of(mine)
    inner = Recorder()
    sent = await _call(IdentityCookieMiddleware(inner), _scope(cookie=header))
    assert b"set-cookie" not in dict(sent[0]["headers"])  # it had one: nothing new
    assert _forwarded_cookie(inner) == f"baton_id={mine}; theme=dark"
    bound = Recorder()
    await _call(
        StateTokenBinding(bound),
        _scope("websocket", "/_event/", query=b"token=tab-1", cookie=header),
    )
    assert bound.scopes[0]["query_string"] == (
        f"token={state_token(owner_of(mine), 'tab-1', KEY)}".encode()
    )


async def test_over_https_only_the_host_cookie_counts_beside_a_tossed_one():
    from chat_app.asgi import IdentityCookieMiddleware

    mine, tossed = mint_token(), mint_token()
    inner = Recorder()
    header = f"baton_id={tossed}; __Host-baton_id={mine}"
    await _call(IdentityCookieMiddleware(inner), _scope(cookie=header, x_forwarded_proto="https"))
    assert _forwarded_cookie(inner) == f"__Host-baton_id={mine}"
    assert identity.owner_from_cookie_header(header, KEY) == owner_of(mine)


async def test_over_https_a_browser_with_one_older_cookie_keeps_its_owner():
    from chat_app.asgi import IdentityCookieMiddleware

    mine = mint_token()
    inner = Recorder()
    sent = await _call(
        IdentityCookieMiddleware(inner),
        _scope(cookie=f"baton_id={mine}", x_forwarded_proto="https"),
    )
    set_cookies = [v.decode() for k, v in sent[0]["headers"] if k == b"set-cookie"]
    assert set_cookies[0].startswith(f"__Host-baton_id={mine}; ")
    assert set_cookies[1].startswith("baton_id=; Path=/; Max-Age=0")
    assert _forwarded_cookie(inner) == f"__Host-baton_id={mine}"


async def test_over_https_two_older_cookies_are_both_distrusted():
    from chat_app.asgi import IdentityCookieMiddleware

    first, second = mint_token(), mint_token()
    inner = Recorder()
    await _call(
        IdentityCookieMiddleware(inner),
        _scope(cookie=f"baton_id={first}; baton_id={second}", x_forwarded_proto="https"),
    )
    forwarded = _forwarded_cookie(inner)
    assert forwarded.startswith("__Host-baton_id=")
    assert first not in forwarded and second not in forwarded


async def test_a_dead_share_link_is_a_404_page_and_never_a_cached_200(monkeypatch):
    from chat_app.asgi import ShareStatus

    monkeypatch.setattr(
        "chat_app.asgi.share_status.link_is_live", lambda app, token: token == "live"
    )
    inner = Recorder(PAGE, b"text/html")
    status = ShareStatus(inner, backend=object)  # no database here
    dead = await _call(status, _scope(path="/share/revoked", if_none_match='"etag"'))
    live = await _call(status, _scope(path="/share/live"))
    other = await _call(status, _scope(path="/t/abc"))
    assert (dead[0]["status"], live[0]["status"], other[0]["status"]) == (404, 200, 200)
    assert b"if-none-match" not in dict(inner.scopes[0]["headers"])
    assert b"".join(m.get("body", b"") for m in dead[1:]) == PAGE  # the page still explains
