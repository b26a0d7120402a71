"""ASGI middleware that adds the Content-Security-Policy and the other page headers.

The policy (:func:`chat_app.services.security.web_security.content_security_policy`) allows the
page's own inline scripts by hash. Reflex writes a few of them into each built page (the
colour-mode script, the router's hydration data), and they differ between pages and builds,
so the hashes are taken from the HTML as it is served: the page is buffered (it is a static
file of a few kilobytes, gzip-compressed or not), its inline scripts hashed, and the header
added before the first byte leaves. Results are cached per page body.
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import hashlib
import re
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from chat_app.asgi.identity_cookie import ASGIApp, Message, Scope, app_settings, header
from chat_app.services.security.web_security import content_security_policy, remote_images_allowed
from chat_app.settings import Settings

__all__ = ["SecurityHeaders", "inline_script_hashes"]

_INLINE_SCRIPT = re.compile(rb"<script(?![^>]*\bsrc\s*=)[^>]*>(.*?)</script>", re.S | re.I)
_ALWAYS = [
    (b"x-content-type-options", b"nosniff"),
    # Share links carry their token in the path: never send it to another site.
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
]
_CACHE_SIZE = 64


def inline_script_hashes(html: bytes) -> list[str]:
    """The base64 SHA-256 of each inline ``<script>`` body, as CSP hash sources want them."""
    return [
        base64.b64encode(hashlib.sha256(body).digest()).decode()
        for body in _INLINE_SCRIPT.findall(html)
    ]


def _is_html(headers: list[tuple[bytes, bytes]]) -> bool:
    return any(k.lower() == b"content-type" and v.startswith(b"text/html") for k, v in headers)


def _encoding(headers: list[tuple[bytes, bytes]]) -> bytes:
    for key, value in headers:
        if key.lower() == b"content-encoding":
            return value.strip().lower()
    return b"identity"


class SecurityHeaders:
    def __init__(self, app: ASGIApp, settings: Callable[[], Settings] = app_settings):
        self.app = app
        self.settings = settings
        self._policies: OrderedDict[bytes, bytes] = OrderedDict()

    def _policy(self, body: bytes, encoding: bytes) -> bytes:
        key = hashlib.sha256(encoding + b"\0" + body).digest()
        if key in self._policies:
            self._policies.move_to_end(key)
            return self._policies[key]
        html = gzip.decompress(body) if encoding == b"gzip" else body
        policy = content_security_policy(
            inline_script_hashes(html), remote_images=remote_images_allowed(self.settings())
        ).encode()
        self._policies[key] = policy
        if len(self._policies) > _CACHE_SIZE:
            self._policies.popitem(last=False)
        return policy

    def _with_policy(self, start: Message, body: bytes) -> Message:
        headers = list(start["headers"])
        encoding = _encoding(headers)
        if encoding in (b"identity", b"gzip"):
            headers.append((b"content-security-policy", self._policy(body, encoding)))
        return dict(start, headers=headers)

    async def __call__(self, scope: Scope, receive, send) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        if "text/html" in (header(scope, b"accept") or ""):
            # Pages are hashed after decoding; Reflex precompresses them with gzip only, so
            # a page is never asked for in an encoding this middleware cannot read.
            headers = [(k, v) for k, v in scope.get("headers", []) if k != b"accept-encoding"]
            wanted = header(scope, b"accept-encoding") or ""
            if "gzip" in wanted:
                headers.append((b"accept-encoding", b"gzip"))
            scope = dict(scope, headers=headers)
        start: Message | None = None
        chunks: list[bytes] = []

        async def send_with_headers(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", []), *_ALWAYS]
                if not _is_html(headers):
                    await send(dict(message, headers=headers))
                    return
                start = dict(message, headers=headers)
                return
            if start is None:
                await send(message)
                return
            if message["type"] == "http.response.pathsend":
                # The server sends the file itself (granian's pathsend): hash it from disk.
                body = await asyncio.to_thread(Path(message["path"]).read_bytes)
                await send(self._with_policy(start, body))
                await send(message)
                return
            if message["type"] != "http.response.body":
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            body = b"".join(chunks)
            await send(self._with_policy(start, body))
            await send({"type": "http.response.body", "body": body, "more_body": False})

        await self.app(scope, receive, send_with_headers)
