"""Database failures in plain words, recognized by kind (pure)."""

from __future__ import annotations

import sqlite3

import psycopg
import pytest
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from agent_core.errors import StoreError
from chat_app.db.failures import database_failure
from chat_app.services.presentation.failures import describe_failure


def _wrapped(driver_error: Exception, kind=OperationalError) -> Exception:
    """As SQLAlchemy raises it: the statement, its parameters, the driver's error."""
    return kind("INSERT INTO message (content) VALUES (?)", ("what the user typed",), driver_error)


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (_wrapped(sqlite3.OperationalError("database or disk is full")), "full"),
        (_wrapped(sqlite3.OperationalError("attempt to write a readonly database")), "read_only"),
        (_wrapped(sqlite3.OperationalError("no such table: thread")), "missing"),
        (_wrapped(sqlite3.OperationalError("unable to open database file")), "unreachable"),
        (_wrapped(sqlite3.OperationalError("database is locked")), "busy"),
        (_wrapped(psycopg.errors.DiskFull("could not extend file")), "full"),
        (
            _wrapped(
                psycopg.errors.ReadOnlySqlTransaction("cannot execute INSERT"), ProgrammingError
            ),
            "read_only",
        ),
        (
            _wrapped(
                psycopg.errors.UndefinedTable('relation "message" does not exist'), ProgrammingError
            ),
            "missing",
        ),
        (_wrapped(psycopg.errors.InvalidCatalogName('database "baton" does not exist')), "missing"),
        (_wrapped(psycopg.errors.AdminShutdown("terminating connection")), "unreachable"),
        (_wrapped(psycopg.OperationalError("connection refused")), "unreachable"),
        (_wrapped(psycopg.errors.UniqueViolation("duplicate key"), IntegrityError), "refused"),
        (PoolTimeout("QueuePool limit reached"), "busy"),
    ],
)
def test_each_failure_is_recognized_by_its_kind(error: Exception, kind: str) -> None:
    failure = database_failure(error)
    assert failure is not None and failure.kind == kind
    for word in ("sqlite3", "psycopg", "INSERT", "relation", "what the user typed"):
        assert word not in failure.text()


def test_a_store_error_raised_from_a_driver_error_is_told_by_its_root() -> None:
    try:
        try:
            raise _wrapped(sqlite3.OperationalError("database or disk is full"))
        except OperationalError as exc:
            raise StoreError("The database's disk is full; nothing was stored.") from exc
    except StoreError as error:
        assert describe_failure(error) == (
            "The database's disk is full. Try again once an administrator has freed space."
        )


def test_other_errors_are_not_database_failures_and_show_only_their_kind() -> None:
    assert database_failure(ValueError("what the user typed")) is None
    assert describe_failure(ValueError("what the user typed")) == (
        "An unexpected error (ValueError) stopped this; the server's log has the details."
    )
    assert describe_failure(StoreError("This chat does not exist.")) == (
        "This chat does not exist."
    )
