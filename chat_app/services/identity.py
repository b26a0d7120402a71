"""Browser identity: a random owner id in a signed, http-only cookie.

The cookie value is ``<owner id>.<HMAC-SHA256 of it>``. Only the server can mint one, so a
browser cannot pick another owner's id, and page scripts cannot read it (http-only). The
signing key comes from ``BATON_SECRET_KEY``; without it a random key is created once and kept
in a file beside the working directory (``.baton-secret``), so identities survive restarts.
Several workers on several hosts must share ``BATON_SECRET_KEY``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
import threading
from functools import lru_cache
from http.cookies import SimpleCookie
from pathlib import Path

__all__ = ["COOKIE_NAME", "mint_token", "owner_from_token", "owner_from_cookie_header", "secret_key"]

COOKIE_NAME = "baton_id"
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


def owner_from_cookie_header(header: str | None) -> str | None:
    """The owner id from a raw ``Cookie`` header, if it carries a valid token."""
    if not header:
        return None
    jar = SimpleCookie()
    try:
        jar.load(header)
    except Exception:  # a malformed header is treated as no identity
        return None
    morsel = jar.get(COOKIE_NAME)
    return owner_from_token(morsel.value if morsel else None)
