"""A database failure in plain words: what happened and what to do, never the driver's text.

SQLAlchemy's, psycopg's and sqlite3's messages name tables, quote SQL and (unless an engine
hides them) the statement's parameters, which hold what the user typed. So a failure is
recognized by its kind (the error class, PostgreSQL's SQLSTATE, SQLite's fixed messages) and
told in one of a few sentences a user can act on (pure).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from sqlalchemy.exc import TimeoutError as PoolTimeout

__all__ = ["DatabaseFailure", "database_failure"]


@dataclass(frozen=True)
class DatabaseFailure:
    """``what`` happened (a clause) and the ``advice`` (a sentence, may be empty)."""

    kind: str
    what: str
    advice: str

    def text(self, *, nothing_stored: bool = False) -> str:
        """The failure as a user reads it; ``nothing_stored`` for a write that was undone."""
        stored = "; nothing was stored" if nothing_stored else ""
        return f"{self.what}{stored}. {self.advice}".strip()


_FAILURES = {
    "busy": (
        "The database is busy (every connection of this worker is in use)",
        "Try again in a moment.",
    ),
    "full": ("The database's disk is full", "Try again once an administrator has freed space."),
    "read_only": (
        "The database is read-only",
        "Try again once an administrator has made it writable.",
    ),
    "missing": (
        "The database is gone (its tables, or the database itself, were removed)",
        "An administrator must restore it, or restart Baton on an empty one.",
    ),
    "unreachable": (
        "The database cannot be reached (it may be down or restarting)",
        "Try again once it is back.",
    ),
    "refused": ("The database refused the change", ""),
}

# PostgreSQL's SQLSTATE codes (and their classes, by their first two characters).
_SQLSTATE = {
    "53100": "full",
    "53000": "full",  # disk_full, insufficient_resources
    "25006": "read_only",  # read_only_sql_transaction
    "42P01": "missing",
    "3D000": "missing",  # undefined_table, invalid_catalog_name
    "3F000": "missing",  # invalid_schema_name
    "57P01": "unreachable",
    "57P02": "unreachable",
    "57P03": "unreachable",  # shutdown
    "53300": "busy",
    "57014": "busy",  # too_many_connections, query_canceled
    "55P03": "busy",
    "40P01": "busy",  # lock_not_available, deadlock_detected
}
_SQLSTATE_CLASSES = {"08": "unreachable"}  # connection_exception
# SQLite says what happened in fixed messages (sqlite3 has no error codes before 3.11's).
_SQLITE = (
    ("database or disk is full", "full"),
    ("readonly database", "read_only"),
    ("no such table", "missing"),
    ("file is not a database", "missing"),
    ("unable to open database file", "unreachable"),
    ("disk i/o error", "unreachable"),
    ("database is locked", "busy"),
)


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc``, the driver error it wraps and the exceptions it was raised from."""
    seen: set[int] = set()
    pending: list[BaseException | None] = [exc]
    while pending:
        current = pending.pop(0)
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        pending += [getattr(current, "orig", None), current.__cause__, current.__context__]


def _kind(exc: BaseException) -> str | None:
    if isinstance(exc, PoolTimeout):
        return "busy"
    state = getattr(exc, "sqlstate", None)
    if isinstance(state, str) and state:
        return _SQLSTATE.get(state) or _SQLSTATE_CLASSES.get(state[:2]) or "refused"
    if isinstance(exc, sqlite3.Error):
        text = str(exc).lower()
        return next((kind for words, kind in _SQLITE if words in text), "refused")
    module = type(exc).__module__
    if module.startswith("psycopg") and type(exc).__name__ == "OperationalError":
        return "unreachable"  # a connection that failed or dropped carries no SQLSTATE
    return None


def database_failure(exc: BaseException) -> DatabaseFailure | None:
    """The plain account of ``exc`` when a database failure is at its root; None for any
    other error (pure)."""
    if not any(
        isinstance(e, (SQLAlchemyError, sqlite3.Error)) or type(e).__module__.startswith("psycopg")
        for e in _chain(exc)
    ):
        return None
    for error in _chain(exc):
        kind = _kind(error)
        if kind is not None:
            return DatabaseFailure(kind, *_FAILURES[kind])
    if any(isinstance(e, DBAPIError) and e.connection_invalidated for e in _chain(exc)):
        return DatabaseFailure("unreachable", *_FAILURES["unreachable"])
    return DatabaseFailure("refused", *_FAILURES["refused"])
