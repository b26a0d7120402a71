"""ASGI middleware that gives every browser a signed, http-only identity cookie.

On an HTTP request without a valid identity cookie (``__Host-baton_id`` over HTTPS,
``baton_id`` over HTTP, see :mod:`chat_app.services.security.identity`) it mints one, puts it in the
request in place of any other (so this very request already has an owner, and a cookie a
sibling subdomain tossed in is not seen) and sets it on the response. Over HTTPS, a browser
that has only the older ``baton_id`` (one, valid) keeps its owner under the new name. Page loads reach the
backend in the production single-port mode (``make run``), so the browser holds the cookie
before its websocket connects; Reflex then sees it in the connection's headers. A websocket
without a valid cookie gets a fresh id for that connection only.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

from chat_app.services.security.identity import (
    COOKIE_NAME,
    HOST_COOKIE_NAME,
    cookie_name,
    identity_tokens,
    mint_token,
    owner_from_token,
)
from chat_app.services.security.web_security import allowed_origins
from chat_app.settings import Settings

__all__ = [
    "ASGIApp",
    "app_identity_key",
    "app_settings",
    "IdentityCookieMiddleware",
    "IdentityChoice",
    "choose_identity",
    "Message",
    "Scope",
    "header",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
ASGIApp = Callable[
    [Scope, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]], Awaitable[None]
]
_ONE_YEAR = 365 * 24 * 3600


def app_settings() -> Settings:
    """The settings of the process's app (:func:`chat_app.root.root`, built at start-up
    before the first request), which the middlewares read at each request."""
    from chat_app.root import root

    return root().settings


def app_identity_key() -> bytes:
    """The identity key of the process's app, which the middlewares sign and check
    identities with."""
    from chat_app.root import root

    return root().identity_key


def header(scope: Scope, name: bytes) -> str | None:
    """A request header (``name`` in lower case), repeated ones joined as cookies are."""
    values = [v.decode("latin-1") for k, v in scope.get("headers", []) if k == name]
    return "; ".join(values) if values else None


def _cookie_header(scope: Scope) -> str:
    return header(scope, b"cookie") or ""


def _served_over_https(scope: Scope, settings: Settings) -> bool:
    """HTTPS here, or at the TLS-terminating proxy in front, or by the configured origins."""
    forwarded = (header(scope, b"x-forwarded-proto") or "").split(",")[0].strip().lower()
    origins = allowed_origins(settings)
    return (
        scope.get("scheme") == "https"
        or forwarded == "https"
        or bool(origins)
        and all(o.startswith("https://") for o in origins)
    )


@dataclass(frozen=True)
class IdentityChoice:
    """Which token this request goes on with, and whether the browser must be given it
    (``set``) and lose the older cookie (``forget_legacy``)."""

    token: str
    set: bool
    forget_legacy: bool = False


def choose_identity(cookie_header: str, *, https: bool, key: bytes) -> IdentityChoice:
    """The identity for a request (pure but for minting), valid meaning signed by ``key``:
    the first valid cookie of the scheme's name; over HTTPS without one, the older
    ``baton_id`` when the browser sent exactly one valid (several mean one was tossed in:
    none is trusted); else a new one."""
    name = cookie_name(https)
    for token in identity_tokens(cookie_header, name):
        if owner_from_token(token, key):
            return IdentityChoice(token, set=False)
    if https:
        legacy = [
            t for t in identity_tokens(cookie_header, COOKIE_NAME) if owner_from_token(t, key)
        ]
        if len(legacy) == 1:
            return IdentityChoice(legacy[0], set=True, forget_legacy=True)
    return IdentityChoice(mint_token(key), set=True)


def _without_identity(cookie_header: str) -> str:
    names = (COOKIE_NAME, HOST_COOKIE_NAME)
    return "; ".join(
        pair.strip()
        for pair in cookie_header.split(";")
        if pair.strip() and pair.strip().partition("=")[0].strip() not in names
    )


class IdentityCookieMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        settings: Callable[[], Settings] = app_settings,
        key: Callable[[], bytes] = app_identity_key,
    ):
        self.app = app
        self.settings = settings
        self.key = key

    async def __call__(self, scope: Scope, receive, send) -> None:
        if scope.get("type") not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        https = _served_over_https(scope, self.settings())
        name = cookie_name(https)
        existing = _cookie_header(scope)
        choice = choose_identity(existing, https=https, key=self.key())
        # The request goes on with the chosen identity first and alone: a later reader
        # never meets a cookie a sibling subdomain added.
        others = _without_identity(existing)
        cookie = f"{name}={choice.token}" + (f"; {others}" if others else "")
        headers = [(k, v) for k, v in scope.get("headers", []) if k != b"cookie"]
        scope = dict(scope, headers=[*headers, (b"cookie", cookie.encode("latin-1"))])
        if scope["type"] == "websocket" or not choice.set:
            await self.app(scope, receive, send)
            return
        secure = "; Secure" if https else ""
        set_cookies = [
            (
                f"{name}={choice.token}; Path=/; Max-Age={_ONE_YEAR}; HttpOnly; "
                f"SameSite=Lax{secure}"
            ).encode("latin-1")
        ]
        if choice.forget_legacy:
            set_cookies.append(
                f"{COOKIE_NAME}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax{secure}".encode(
                    "latin-1"
                )
            )

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                added = [(b"set-cookie", value) for value in set_cookies]
                message = dict(message, headers=[*message.get("headers", []), *added])
            await send(message)

        await self.app(scope, receive, send_with_cookie)
