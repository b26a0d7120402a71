"""ASGI middleware that refuses the websocket and state-changing requests of other origins.

The identity cookie is ``SameSite=Lax``: a page on another port of the host or on a sibling
subdomain is *same-site*, so the browser sends the victim's cookie with that page's websocket
handshake. The Origin header says who opened it; this guard lets through only the app's own
origin (see :func:`chat_app.services.security.web_security.origin_allowed`) on the Reflex socket
(``/_event``, websocket and polling), uploads and every non-GET request. A request with no
Origin at all is not a browser acting for someone else and passes. When app origins are
configured, the Host header must name one of them too (DNS rebinding).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from chat_app.asgi.identity_cookie import ASGIApp, Scope, app_settings, header
from chat_app.services.security.web_security import allowed_origins, host_allowed, origin_allowed
from chat_app.settings import Settings

__all__ = ["OriginGuard"]

log = logging.getLogger(__name__)

_SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
_GUARDED_PATHS = ("/_event", "/_upload")


def _guarded(scope: Scope) -> bool:
    if scope["type"] == "websocket":
        return True
    path = scope.get("path", "")
    return path.startswith(_GUARDED_PATHS) or scope.get("method", "GET") not in _SAFE_METHODS


class OriginGuard:
    def __init__(self, app: ASGIApp, settings: Callable[[], Settings] = app_settings):
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive, send) -> None:
        if scope.get("type") not in ("http", "websocket") or not _guarded(scope):
            await self.app(scope, receive, send)
            return
        allowed = allowed_origins(self.settings())
        host = header(scope, b"host") or ""
        origin = header(scope, b"origin")
        scheme = "https" if scope.get("scheme") in ("https", "wss") else "http"
        refused = None
        if not host_allowed(host, allowed=allowed):
            refused = f"host {host!r}"
        elif origin is not None and not origin_allowed(
            origin, host=host, scheme=scheme, allowed=allowed
        ):
            refused = f"origin {origin!r}"
        if refused is None:
            await self.app(scope, receive, send)
            return
        log.warning("refused a %s request to %s from %s", scope["type"], scope.get("path"), refused)
        if scope["type"] == "websocket":
            # Closing before accepting refuses the handshake (HTTP 403).
            await receive()
            await send({"type": "websocket.close", "code": 1008})
            return
        body = b"Forbidden: this request did not come from Baton's own pages."
        await send(
            {
                "type": "http.response.start",
                "status": 403,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
