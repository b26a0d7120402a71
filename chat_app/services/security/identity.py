"""Browser identity: a random owner id in a signed, http-only cookie.

The cookie value is ``<owner id>.<HMAC-SHA256 of it>``. Only the server can mint one, so a
browser cannot pick another owner's id, and page scripts cannot read it (http-only). The
signing key is handed in: the App's ``identity_key``, which :func:`signing_key` makes from the
settings (``BATON_SECRET_KEY``; without it a random key created once and kept in a file beside
the working directory, ``.baton-secret``, so identities survive restarts). Several workers on
several hosts must share ``BATON_SECRET_KEY``.

A sibling subdomain can set a cookie for the parent domain, which the browser then sends
here beside ours: so over HTTPS the cookie is ``__Host-baton_id``, which browsers accept
only from this very host (Secure, ``Path=/``, no ``Domain``), and whatever the name, the
first valid value in the header counts, never a later one. Over plain HTTP (a laptop, a
test) it is ``baton_id``.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import os
import secrets
import threading
from pathlib import Path

from chat_app.errors import AppError
from chat_app.settings import Settings

__all__ = [
    "COOKIE_NAME",
    "HOST_COOKIE_NAME",
    "cookie_name",
    "mint_token",
    "owner_from_token",
    "owner_from_cookie_header",
    "identity_tokens",
    "signing_key",
    "UnusableSigningKey",
]

COOKIE_NAME = "baton_id"
#: The name over HTTPS: the ``__Host-`` prefix makes browsers refuse it from any other host.
HOST_COOKIE_NAME = f"__Host-{COOKIE_NAME}"
_lock = threading.Lock()


class UnusableSigningKey(AppError):
    """The key file holds no key: anyone could sign an identity with an empty one."""


def signing_key(settings: Settings) -> bytes:
    """The key identity cookies are signed with: ``settings.secret_key``, else the key kept
    in ``settings.secret_file``, created there (readable by its owner only) on first use.

    An empty key file is refused rather than signed with (it could be one another worker is
    still writing: the App asks again at its next request)."""
    if settings.secret_key:
        return settings.secret_key.encode()
    path = Path(settings.secret_file)
    with _lock:
        if not path.exists():
            # Another worker may create it first: its key is the one everyone then reads.
            with contextlib.suppress(FileExistsError):
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "w") as handle:
                    handle.write(secrets.token_hex(32))
        key = path.read_text().strip()
    if not key:
        raise UnusableSigningKey(
            f"the identity key file {path} is empty: delete it (a new key is made) or set "
            "BATON_SECRET_KEY"
        )
    return key.encode()


def _sign(owner: str, key: bytes) -> str:
    digest = hmac.new(key, owner.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def mint_token(key: bytes) -> str:
    """A new owner id (128 random bits) with its signature by ``key``, ready for the cookie."""
    owner = secrets.token_hex(16)
    return f"{owner}.{_sign(owner, key)}"


def owner_from_token(token: str | None, key: bytes) -> str | None:
    """The owner id of a token well signed by ``key``; None for a missing, malformed or
    forged one."""
    if not token or token.count(".") != 1:
        return None
    owner, signature = token.split(".")
    if len(owner) != 32 or not hmac.compare_digest(signature, _sign(owner, key)):
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


def owner_from_cookie_header(header: str | None, key: bytes) -> str | None:
    """The owner id from a raw ``Cookie`` header: the first ``__Host-baton_id`` well signed
    by ``key``, else the first such ``baton_id``; None when neither holds a valid token."""
    for name in (HOST_COOKIE_NAME, COOKIE_NAME):
        for token in identity_tokens(header, name):
            owner = owner_from_token(token, key)
            if owner:
                return owner
    return None
