"""ASGI middleware that gives every browser a signed, http-only identity cookie.

On an HTTP request without a valid ``baton_id`` cookie it mints one, adds it to the request
(so this very request already has an owner) and sets it on the response. Page loads reach the
backend in the production single-port mode (``make run``), so the browser holds the cookie
before its websocket connects; Reflex then sees it in the connection's headers. A websocket
without a valid cookie gets a fresh id for that connection only.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from chat_app.services.identity import COOKIE_NAME, mint_token, owner_from_cookie_header
from chat_app.services.web_security import allowed_origins

__all__ = ["ASGIApp", "IdentityCookieMiddleware", "Message", "Scope", "header"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]], Awaitable[None]]
_ONE_YEAR = 365 * 24 * 3600


def header(scope: Scope, name: bytes) -> str | None:
    """A request header (``name`` in lower case), repeated ones joined as cookies are."""
    values = [v.decode("latin-1") for k, v in scope.get("headers", []) if k == name]
    return "; ".join(values) if values else None


def _cookie_header(scope: Scope) -> str:
    return header(scope, b"cookie") or ""


def _served_over_https(scope: Scope) -> bool:
    """HTTPS here, or at the TLS-terminating proxy in front, or by the configured origins."""
    forwarded = (header(scope, b"x-forwarded-proto") or "").split(",")[0].strip().lower()
    origins = allowed_origins()
    return (scope.get("scheme") == "https" or forwarded == "https"
            or bool(origins) and all(o.startswith("https://") for o in origins))


class IdentityCookieMiddleware:
    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive, send) -> None:
        if scope.get("type") not in ("http", "websocket") or owner_from_cookie_header(
            _cookie_header(scope)
        ):
            await self.app(scope, receive, send)
            return
        token = mint_token()
        headers = [(k, v) for k, v in scope.get("headers", []) if k != b"cookie"]
        existing = _cookie_header(scope)
        cookie = f"{existing}; {COOKIE_NAME}={token}" if existing else f"{COOKIE_NAME}={token}"
        scope = dict(scope, headers=[*headers, (b"cookie", cookie.encode("latin-1"))])
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return
        secure = "; Secure" if _served_over_https(scope) else ""
        set_cookie = (f"{COOKIE_NAME}={token}; Path=/; Max-Age={_ONE_YEAR}; HttpOnly; "
                      f"SameSite=Lax{secure}").encode("latin-1")

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = dict(message, headers=[*message.get("headers", []), (b"set-cookie", set_cookie)])
            await send(message)

        await self.app(scope, receive, send_with_cookie)
