"""ASGI middleware that answers a dead share link with HTTP 404.

The share page is the same static page for every token; it says "Link not found" once its
state loads, but the HTTP status was 200 for missing, revoked and expired links alike, so
crawlers, link checkers and previews took a dead link for a live one. The page is still
served (the reader sees the same explanation), with status 404 when the token is not live.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

from chat_app.asgi.identity_cookie import ASGIApp, Message, Scope
from chat_app.root import root
from chat_app.services.conversation.threads import link_is_live
from chat_app.services.runtime.backend import Backend

__all__ = ["ShareStatus"]

_SHARE_PAGE = re.compile(r"^/share/([^/]+)/?$")


class ShareStatus:
    def __init__(self, app: ASGIApp, backend: Callable[[], Backend] = root):
        self.app = app
        self.backend = backend  # the process's app (chat_app.root), reached at each request

    async def __call__(self, scope: Scope, receive, send) -> None:
        match = _SHARE_PAGE.match(scope.get("path", "")) if scope.get("type") == "http" else None
        if match is None or scope.get("method") not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        token = match.group(1)
        # The backend too is looked up off the loop: the first look-up migrates the database.
        live = await asyncio.to_thread(lambda: link_is_live(self.backend(), token))
        # Always the full page, never "304 Not Modified": a revoked link must not be answered
        # from the browser's cache with the status it had while it was live.
        scope = dict(
            scope,
            headers=[
                (k, v)
                for k, v in scope.get("headers", [])
                if k not in (b"if-none-match", b"if-modified-since")
            ],
        )

        async def send_status(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", []), (b"cache-control", b"no-cache")]
                status = 404 if not live and message["status"] == 200 else message["status"]
                message = dict(message, status=status, headers=headers)
            await send(message)

        await self.app(scope, receive, send_status)
