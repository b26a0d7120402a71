"""ASGI middleware that binds Reflex's client token to the browser's identity.

Reflex keys a tab's UI state (its thread, its rows) by the token the page sends in the
websocket URL (``/_event?token=…``) and in the ``Reflex-Client-Token`` header of uploads.
That token is a bearer credential: it sits in URLs (and so in proxy logs), and presenting it
from another browser used to hydrate its owner's state. Here every token is replaced, before
Reflex sees it, by :func:`~chat_app.services.security.web_security.state_token` of (identity, token):
the same tab gets the same state on every reconnect, and anyone else presenting that token,
with another identity cookie or none, gets a fresh, empty state.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from urllib.parse import parse_qsl, urlencode

from chat_app.asgi.identity_cookie import ASGIApp, Scope, app_identity_key, header
from chat_app.services.security.identity import owner_from_cookie_header
from chat_app.services.security.web_security import state_token

__all__ = ["StateTokenBinding"]

_TOKEN_HEADER = b"reflex-client-token"


def _bound(owner: str | None, token: str, key: bytes) -> str:
    # No identity (the cookie middleware always provides one, so this is defence in depth):
    # a state nobody can come back to.
    return state_token(owner, token, key) if owner else str(uuid.uuid4())


class StateTokenBinding:
    def __init__(self, app: ASGIApp, key: Callable[[], bytes] = app_identity_key):
        self.app = app
        self.key = key

    async def __call__(self, scope: Scope, receive, send) -> None:
        path = scope.get("path", "")
        if scope.get("type") not in ("http", "websocket") or not path.startswith(
            ("/_event", "/_upload")
        ):
            await self.app(scope, receive, send)
            return
        key = self.key()
        owner = owner_from_cookie_header(header(scope, b"cookie"), key)
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        if any(name == "token" for name, _ in query):
            query = [
                (name, _bound(owner, value, key) if name == "token" else value)
                for name, value in query
            ]
            scope = dict(scope, query_string=urlencode(query).encode("latin-1"))
        headers = scope.get("headers", [])
        if any(name == _TOKEN_HEADER for name, _ in headers):
            headers = [
                (name, _bound(owner, value.decode("latin-1"), key).encode("latin-1"))
                if name == _TOKEN_HEADER
                else (name, value)
                for name, value in headers
            ]
            scope = dict(scope, headers=headers)
        await self.app(scope, receive, send)
