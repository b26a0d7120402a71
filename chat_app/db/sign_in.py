"""Data access for the admin sign-in throttle's failure counts.

A sign-in attempt is one transaction: :func:`lock_sign_in_counts`, read the counts, decide,
check the password, then exactly one of :func:`record_sign_in_failure` or
:func:`clear_sign_in_failures`, which commit and so end it. Holding the lock across the check
is what stops many parallel guesses from all reading the same low count.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, text
from sqlmodel import Session, col, select

from chat_app.db.locks import advisory_key
from chat_app.db.models import AdminSignInLink, SignInFailureCount

__all__ = [
    "lock_sign_in_counts",
    "get_sign_in_counts",
    "record_sign_in_failure",
    "clear_sign_in_failures",
    "add_sign_in_link",
    "take_sign_in_link",
]

_LOCK_NAME = "admin-sign-in"


def lock_sign_in_counts(*, session: Session) -> None:
    """Serialize sign-in attempts across processes until the session's transaction ends.

    PostgreSQL: a transaction-level advisory lock. SQLite: the write session's
    ``BEGIN IMMEDIATE`` already holds the database's write lock, which this statement takes.
    """
    if session.get_bind().dialect.name == "postgresql":
        session.connection().execute(
            text("SELECT pg_advisory_xact_lock(:key)"), {"key": advisory_key(_LOCK_NAME)}
        )
    else:
        session.exec(select(SignInFailureCount.scope).limit(1)).first()


def get_sign_in_counts(*, session: Session, scopes: list[str]) -> dict[str, SignInFailureCount]:
    """The stored counts of ``scopes`` (scopes without failures are absent)."""
    rows = session.exec(select(SignInFailureCount).where(col(SignInFailureCount.scope).in_(scopes)))
    return {row.scope: row for row in rows}


def record_sign_in_failure(
    *, session: Session, counts: list[SignInFailureCount], now: datetime
) -> None:
    """Store the updated ``counts`` and delete every count that expired by ``now``; commits."""
    for count in counts:
        session.merge(count)
    session.exec(delete(SignInFailureCount).where(col(SignInFailureCount.expires_at) <= now))
    session.commit()


def clear_sign_in_failures(*, session: Session, scope: str) -> None:
    """Forget the failures of ``scope`` (after it signed in); commits."""
    session.exec(delete(SignInFailureCount).where(col(SignInFailureCount.scope) == scope))
    session.commit()


def add_sign_in_link(*, session: Session, link: AdminSignInLink) -> None:
    """Store a one-time sign-in link (its token's hash) and drop expired ones; commits."""
    session.exec(delete(AdminSignInLink).where(col(AdminSignInLink.expires_at) <= link.created_at))
    session.add(link)
    session.commit()


def take_sign_in_link(*, session: Session, token_hash: str, now: datetime) -> bool:
    """Use the link of ``token_hash``: True when it existed and had not expired by ``now``.
    It is deleted either way, in one statement, so two tabs cannot both use it; commits."""
    taken = session.exec(
        delete(AdminSignInLink)
        .where(col(AdminSignInLink.token_hash) == token_hash)
        .returning(AdminSignInLink.expires_at)
    ).first()
    session.commit()
    return taken is not None and taken[0] > now
