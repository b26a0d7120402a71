"""One-time admin sign-in links: a way in that address-based throttling cannot block.

Sign-in by password is throttled per address and, past a hundred failures, for everyone
(:mod:`chat_app.services.security.admin_throttle`): twelve attacking addresses can keep the
real admin out. Whoever can run a command on the server can instead print a link
(``python -m chat_app.admin_link``) that signs its first opener in. Its token is 256 random
bits, so guessing gains nothing and wrong tokens need no throttle; it works once, for
:data:`LINK_LIFETIME`, and only its SHA-256 is stored.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from datetime import datetime, timedelta

from chat_app.db import repo
from chat_app.db.models import AdminSignInLink, utcnow
from chat_app.services.admin.auth import AdminRefused, current_grant
from chat_app.services.runtime.backend import Backend

__all__ = ["LINK_LIFETIME", "LINK_PARAMETER", "issue_sign_in_link", "sign_in_with_link"]

LINK_LIFETIME = timedelta(minutes=10)
#: The query parameter of ``/admin`` that carries a link's token.
LINK_PARAMETER = "sign_in"
_UNUSABLE = (
    "This sign-in link was already used, has expired or is wrong. Print a new one on the "
    "server with: python -m chat_app.admin_link"
)

_log = logging.getLogger(__name__)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def issue_sign_in_link(app: Backend, *, now: datetime | None = None) -> str:
    """A new one-time sign-in token (to put in ``/admin?sign_in=…``). Raises
    :class:`AdminRefused` when admin is disabled: a link would sign in to nothing."""
    current_grant(app)
    token = secrets.token_urlsafe(32)
    created = now or utcnow()
    with app.write() as db:
        repo.add_sign_in_link(
            session=db,
            link=AdminSignInLink(
                token_hash=_hash(token), created_at=created, expires_at=created + LINK_LIFETIME
            ),
        )
    _log.info("Admin sign-in link issued, valid until %s", created + LINK_LIFETIME)
    return token


def sign_in_with_link(app: Backend, token: str, *, now: datetime | None = None) -> str:
    """The admin grant for a link's ``token``, which is used up: it works once, until it
    expires, whatever the sign-in throttle says. Raises :class:`AdminRefused` otherwise."""
    grant = current_grant(app)
    if not token:
        raise AdminRefused(_UNUSABLE, code="link_unusable")
    with app.write() as db:
        taken = repo.take_sign_in_link(session=db, token_hash=_hash(token), now=now or utcnow())
    if not taken:
        _log.warning("Admin sign-in with an unusable link refused")
        raise AdminRefused(_UNUSABLE, code="link_unusable")
    _log.info("Admin signed in with a one-time link")
    return grant
