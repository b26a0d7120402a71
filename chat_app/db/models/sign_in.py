"""Failed admin sign-ins, counted per scope (one client address, or everyone) for throttling.

The counts live in the database, not in process memory, because every backend worker
process must see the same counts. What the columns mean for a decision is the throttle
policy's business (:mod:`chat_app.services.security.admin_throttle`); this table only keeps them.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from chat_app.db.models.types import UTCDateTime

__all__ = ["AdminSignInLink", "SignInFailureCount"]


class SignInFailureCount(SQLModel, table=True):
    """Failures of one scope in its current window. Never holds the passwords tried."""

    __tablename__ = "sign_in_failure_count"

    scope: str = Field(primary_key=True, max_length=64)
    """``ip:<address>`` (an IPv6 client by its /64) or ``everyone``."""
    failures: int = 0
    last_failure_at: datetime = Field(sa_type=UTCDateTime)
    locked_until: datetime | None = Field(default=None, sa_type=UTCDateTime)
    expires_at: datetime = Field(sa_type=UTCDateTime, index=True)
    """When these failures stop counting (the window's end, or the lockout's); rows past it
    are deleted."""


class AdminSignInLink(SQLModel, table=True):
    """A one-time admin sign-in link printed by a command on the server: kept as the hash of
    its token, so a copy of the database signs no one in; deleted when used or expired."""

    __tablename__ = "admin_sign_in_link"

    token_hash: str = Field(primary_key=True, max_length=64)
    """The SHA-256 of the link's token, in hex."""
    created_at: datetime = Field(sa_type=UTCDateTime)
    expires_at: datetime = Field(sa_type=UTCDateTime, index=True)
