"""Browser identity: a random owner id in a signed, http-only cookie.

The cookie value is ``<owner id>.<HMAC-SHA256 of it>``. Only the server can mint one, so a
browser cannot pick another owner's id, and page scripts cannot read it (http-only). The
signing key comes from ``BATON_SECRET_KEY``; without it a random key is created once and kept
in a file beside the working directory (``.baton-secret``), so identities survive restarts.
Several workers on several hosts must share ``BATON_SECRET_KEY``.

A sibling subdomain can set a cookie for the parent domain, which the browser then sends
here beside ours: so over HTTPS the cookie is ``__Host-baton_id``, which browsers accept
only from this very host (Secure, ``Path=/``, no ``Domain``), and whatever the name, the
first valid value in the header counts, never a later one. Over plain HTTP (a laptop, a
test) it is ``baton_id``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
import threading
from functools import lru_cache
from pathlib import Path

__all__ = [
    "COOKIE_NAME",
    "HOST_COOKIE_NAME",
    "cookie_name",
    "mint_token",
    "owner_from_token",
    "owner_from_cookie_header",
    "identity_tokens",
    "secret_key",
]

COOKIE_NAME = "baton_id"
#: The name over HTTPS: the ``__Host-`` prefix makes browsers refuse it from any other host.
HOST_COOKIE_NAME = f"__Host-{COOKIE_NAME}"
_SECRET_FILE = ".baton-secret"
_lock = threading.Lock()


@lru_cache(maxsize=1)
def secret_key() -> bytes:
    """The signing key (see the module docstring)."""
    configured = os.environ.get("BATON_SECRET_KEY")
    if configured:
        return configured.encode()
    path = Path(os.environ.get("BATON_SECRET_FILE", _SECRET_FILE))
    with _lock:
        if not path.exists():
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as handle:
                handle.write(secrets.token_hex(32))
        return path.read_text().strip().encode()


def _sign(owner: str) -> str:
    digest = hmac.new(secret_key(), owner.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def mint_token() -> str:
    """A new owner id (128 random bits) with its signature, ready for the cookie."""
    owner = secrets.token_hex(16)
    return f"{owner}.{_sign(owner)}"


def owner_from_token(token: str | None) -> str | None:
    """The owner id of a well-signed token; None for a missing, malformed or forged one."""
    if not token or token.count(".") != 1:
        return None
    owner, signature = token.split(".")
    if len(owner) != 32 or not hmac.compare_digest(signature, _sign(owner)):
        return None
    return owner


def cookie_name(https: bool) -> str:
    """The identity cookie's name when the app is served over HTTPS or not."""
    return HOST_COOKIE_NAME if https else COOKIE_NAME


def identity_tokens(header: str | None, name: str) -> list[str]:
    """The values of every cookie called ``name`` in a raw ``Cookie`` header, in the order
    the browser sent them (``SimpleCookie`` keeps only the last one of a name, which is
    exactly the one a sibling subdomain adds)."""
    found = []
    for pair in (header or "").split(";"):
        key, eq, value = pair.strip().partition("=")
        if eq and key.strip() == name:
            found.append(value.strip().strip('"'))
    return found


def owner_from_cookie_header(header: str | None) -> str | None:
    """The owner id from a raw ``Cookie`` header: the first valid ``__Host-baton_id``, else
    the first valid ``baton_id``; None when neither holds a valid token."""
    for name in (HOST_COOKIE_NAME, COOKIE_NAME):
        for token in identity_tokens(header, name):
            owner = owner_from_token(token)
            if owner:
                return owner
    return None
