"""How admin sign-in attempts are throttled: pure decisions over failure counts, no I/O.

Failed sign-ins are counted in two scopes: the client's IP address (a client that drops its
cookie keeps its address) and everyone together (many addresses guessing at once).

- Per client, within a window of :data:`WINDOW` that opens at its first failure, the first
  :data:`FREE_FAILURES` failures cost nothing; after them each attempt must wait a delay
  since the last failure that doubles from :data:`FIRST_DELAY` up to :data:`MAX_DELAY`.
  The failure that reaches :data:`CLIENT_LOCKOUT_AFTER` locks the client out for
  :data:`CLIENT_LOCKOUT`.
- Everyone: the failure that reaches :data:`GLOBAL_LOCKOUT_AFTER` within a window of
  :data:`WINDOW` stops sign-in for every client for :data:`GLOBAL_LOCKOUT`.

An attempt that must wait is refused without its password being checked, so guessing faster
gains nothing. A lockout's end (or the window's) forgets the scope's failures. The counts
are kept by :mod:`chat_app.db.sign_in`; :func:`chat_app.services.admin.auth.login` acts on the
decisions made here.
"""

from __future__ import annotations

import ipaddress
import math
from datetime import datetime, timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = [
    "WINDOW",
    "FREE_FAILURES",
    "FIRST_DELAY",
    "MAX_DELAY",
    "CLIENT_LOCKOUT_AFTER",
    "CLIENT_LOCKOUT",
    "GLOBAL_LOCKOUT_AFTER",
    "GLOBAL_LOCKOUT",
    "EVERYONE",
    "FailureCount",
    "Decision",
    "client_scope",
    "delay_after",
    "decide",
    "after_client_failure",
    "after_everyone_failure",
    "wait_text",
]

WINDOW = timedelta(minutes=15)
FREE_FAILURES = 3
FIRST_DELAY = timedelta(seconds=1)
MAX_DELAY = timedelta(seconds=30)
CLIENT_LOCKOUT_AFTER = 10
CLIENT_LOCKOUT = timedelta(minutes=15)
GLOBAL_LOCKOUT_AFTER = 100
GLOBAL_LOCKOUT = timedelta(minutes=5)

#: The scope that counts every client's failures together.
EVERYONE = "everyone"


class FailureCount(BaseModel):
    """A scope's failed sign-ins in its current window."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    failures: int = 0
    last_failure_at: datetime | None = None
    locked_until: datetime | None = None
    expires_at: datetime | None = None
    """When these failures stop counting: the window's end, or the lockout's."""


class Decision(BaseModel):
    """Whether an attempt may have its password checked, and if not, for how long not."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    reason: Literal["allowed", "slow_down", "locked_out", "everyone_locked_out"] = "allowed"
    retry_after: timedelta = timedelta(0)

    @property
    def allowed(self) -> bool:
        return self.reason == "allowed"


_NO_FAILURES = FailureCount()
_ALLOWED = Decision()


def client_scope(client_ip: str) -> str:
    """The scope counting ``client_ip``'s failures: ``ip:<address>``.

    An IPv6 client counts by its /64, because one host is commonly handed a whole /64 and
    could otherwise take a fresh address for every guess.
    """
    try:
        address = ipaddress.ip_address(client_ip.strip())
    except ValueError:
        return "ip:unknown"
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return f"ip:{address.ipv4_mapped}"
        return f"ip:{ipaddress.IPv6Network((int(address), 64), strict=False)}"
    return f"ip:{address}"


def _current(count: FailureCount, now: datetime) -> FailureCount:
    """What of ``count`` still counts at ``now``: nothing once its window or lockout is over."""
    if count.expires_at is None or now >= count.expires_at:
        return _NO_FAILURES
    return count


def delay_after(failures: int) -> timedelta:
    """How long after a client's last failure its next attempt must wait."""
    if failures < FREE_FAILURES:
        return timedelta(0)
    doublings = min(failures - FREE_FAILURES, 16)  # far past the cap; keeps the power small
    return min(FIRST_DELAY * 2**doublings, MAX_DELAY)


def decide(client: FailureCount, everyone: FailureCount, now: datetime) -> Decision:
    """Whether an attempt at ``now`` from the client with these counts may be checked."""
    client, everyone = _current(client, now), _current(everyone, now)
    if everyone.locked_until is not None:
        return Decision(reason="everyone_locked_out", retry_after=everyone.locked_until - now)
    if client.locked_until is not None:
        return Decision(reason="locked_out", retry_after=client.locked_until - now)
    if client.last_failure_at is not None:
        ready_at = client.last_failure_at + delay_after(client.failures)
        if now < ready_at:
            return Decision(reason="slow_down", retry_after=ready_at - now)
    return _ALLOWED


def _after_failure(
    count: FailureCount, now: datetime, *, lock_after: int, lock_for: timedelta
) -> FailureCount:
    count = _current(count, now)
    failures = count.failures + 1
    if failures >= lock_after:
        return FailureCount(
            failures=failures,
            last_failure_at=now,
            locked_until=now + lock_for,
            expires_at=now + lock_for,
        )
    return FailureCount(
        failures=failures, last_failure_at=now, expires_at=count.expires_at or now + WINDOW
    )


def after_client_failure(count: FailureCount, now: datetime) -> FailureCount:
    """The client's count with one more failure at ``now`` (the one that locks it, maybe)."""
    return _after_failure(count, now, lock_after=CLIENT_LOCKOUT_AFTER, lock_for=CLIENT_LOCKOUT)


def after_everyone_failure(count: FailureCount, now: datetime) -> FailureCount:
    """Everyone's count with one more failure at ``now`` (the one that locks all, maybe)."""
    return _after_failure(count, now, lock_after=GLOBAL_LOCKOUT_AFTER, lock_for=GLOBAL_LOCKOUT)


def wait_text(wait: timedelta) -> str:
    """``wait`` as the page says it, rounded up: "N s" under a minute, else "N min"."""
    seconds = max(1, math.ceil(wait.total_seconds()))
    return f"{seconds} s" if seconds < 60 else f"{math.ceil(seconds / 60)} min"
