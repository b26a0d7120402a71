"""Admin sign-in, behind ``BATON_ADMIN_PASSWORD`` (the app's ``Settings.admin_password``).

Without it every call is refused. :func:`login` trades the password for a grant (an
HMAC derived from the password, never the password itself) that the page keeps server-side
and hands back with each call; changing or removing the password invalidates every grant.
Sign-in attempts are throttled per client address and overall
(:mod:`chat_app.services.security.admin_throttle`), with the counts in the database so that every
worker process sees them.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from datetime import datetime, timedelta

from chat_app.db import repo
from chat_app.db.models import SignInFailureCount, utcnow
from chat_app.errors import Refused
from chat_app.services.runtime.backend import Backend
from chat_app.services.security import admin_throttle as throttle

__all__ = [
    "PASSWORD_ENV",
    "AdminRefused",
    "WrongPassword",
    "TooManyAttempts",
    "admin_enabled",
    "login",
    "require_grant",
    "current_grant",
]

PASSWORD_ENV = "BATON_ADMIN_PASSWORD"
_DISABLED = f"Admin is disabled: set {PASSWORD_ENV} to enable it."

_log = logging.getLogger(__name__)


class AdminRefused(Refused):
    """The call lacks a valid grant, or admin is not enabled on this instance."""

    default_code = "not_signed_in"


class WrongPassword(AdminRefused):
    """The password given to :func:`login` is not the admin password."""

    default_code = "wrong_password"

    def __init__(self) -> None:
        super().__init__("Wrong password.", field="password")


class TooManyAttempts(AdminRefused):
    """Sign-in is throttled; the password was not checked. ``retry_after`` says for how long."""

    def __init__(self, decision: throttle.Decision) -> None:
        self.retry_after: timedelta = decision.retry_after
        self.everyone = decision.reason == "everyone_locked_out"
        who = "Too many failed sign-ins on this server" if self.everyone else "Too many attempts"
        super().__init__(
            f"{who}: try again in {throttle.wait_text(decision.retry_after)}.",
            code="too_many_attempts",
        )


def admin_enabled(app: Backend) -> bool:
    """Whether the app was started with an admin password."""
    return bool(app.settings.admin_password)


def _grant_for(password: str) -> str:
    key = hashlib.sha256(password.encode("utf-8")).digest()
    return hmac.new(key, b"baton-admin-grant", hashlib.sha256).hexdigest()


def _expected_grant(app: Backend) -> str | None:
    password = app.settings.admin_password
    return _grant_for(password) if password else None


def _count(row: SignInFailureCount | None) -> throttle.FailureCount:
    if row is None:
        return throttle.FailureCount()
    return throttle.FailureCount.model_validate(row, from_attributes=True)


def login(app: Backend, password: str, client: str, *, now: datetime | None = None) -> str:
    """A grant for the admin calls, when ``password`` matches.

    ``client`` is the caller's IP address, which the throttle counts failures by. Raises
    :class:`TooManyAttempts` (without checking the password) while the client or everyone
    is throttled, :class:`WrongPassword`, or :class:`AdminRefused` when admin is disabled.
    ``now`` replaces the clock in tests.
    """
    expected = app.settings.admin_password
    if not expected:
        raise AdminRefused(_DISABLED, code="admin_disabled")
    now = now or utcnow()
    scope = throttle.client_scope(client)
    # One transaction under a cross-process lock from reading the counts to recording the
    # outcome: parallel guesses cannot all read the same low count.
    with app.write(expire_on_commit=False) as db:
        repo.lock_sign_in_counts(session=db)
        stored = repo.get_sign_in_counts(session=db, scopes=[scope, throttle.EVERYONE])
        mine, everyone = _count(stored.get(scope)), _count(stored.get(throttle.EVERYONE))
        decision = throttle.decide(mine, everyone, now)
        if not decision.allowed:
            _log.debug("Admin sign-in from %s refused unchecked (%s)", scope, decision.reason)
            raise TooManyAttempts(decision)
        if hmac.compare_digest(password.encode("utf-8"), expected.encode("utf-8")):
            repo.clear_sign_in_failures(session=db, scope=scope)
            db.commit()
            _log.info("Admin signed in from %s", scope)
            return _grant_for(expected)
        mine = throttle.after_client_failure(mine, now)
        everyone = throttle.after_everyone_failure(everyone, now)
        repo.record_sign_in_failure(
            session=db,
            now=now,
            counts=[
                SignInFailureCount(scope=s, **c.model_dump())
                for s, c in ((scope, mine), (throttle.EVERYONE, everyone))
            ],
        )
        db.commit()
    _log_failure(scope, mine, everyone)
    raise WrongPassword()


def _log_failure(scope: str, mine: throttle.FailureCount, everyone: throttle.FailureCount) -> None:
    # Never the password tried: it may be the real one with a typo, or another secret.
    _log.warning(
        "Admin sign-in failed from %s (failure %d from it, %d from everyone, in the "
        "current window)",
        scope,
        mine.failures,
        everyone.failures,
    )
    # Failures are only recorded outside a lockout, so a locked count here has just started.
    if mine.locked_until is not None:
        _log.warning(
            "Admin sign-in locked for %s until %s after %d failures",
            scope,
            mine.locked_until.isoformat(timespec="seconds"),
            mine.failures,
        )
    if everyone.locked_until is not None:
        _log.warning(
            "Admin sign-in locked for everyone until %s after %d failures",
            everyone.locked_until.isoformat(timespec="seconds"),
            everyone.failures,
        )


def current_grant(app: Backend) -> str:
    """The grant the configured password gives; :class:`AdminRefused` when admin is disabled.
    For other ways in than the password (a one-time sign-in link)."""
    expected = _expected_grant(app)
    if expected is None:
        raise AdminRefused(_DISABLED, code="admin_disabled")
    return expected


def require_grant(app: Backend, grant: str | None) -> None:
    """Refuse (:class:`AdminRefused`) a call without a valid grant; for every admin service."""
    expected = _expected_grant(app)
    if expected is None:
        raise AdminRefused(_DISABLED, code="admin_disabled")
    if not grant or not hmac.compare_digest(grant.encode("utf-8"), expected.encode("utf-8")):
        raise AdminRefused("Sign in to change assistants.")
