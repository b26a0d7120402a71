"""One SQLAlchemy engine per database URL, configured for Baton's write patterns.

SQLite: WAL so readers never wait for the writer, a 10 s busy timeout so concurrent writers
queue instead of failing, foreign keys on so ``ON DELETE CASCADE`` works, and transactions
begun by the driver-agnostic ``begin`` hook so writers can ask for ``BEGIN IMMEDIATE`` (taking
the write lock up front; a deferred transaction that upgrades to writing can fail at once with
"database is locked" under WAL, whatever the timeout). PostgreSQL: ``pool_pre_ping`` so a
restarted server costs one reconnect, not one failed request.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.pool import StaticPool
from sqlmodel import Session

from chat_app.db.settings import database_url, normalize_url, pool_settings

__all__ = [
    "get_engine",
    "write_engine",
    "write_session",
    "read_session",
    "dispose_engine",
    "is_sqlite",
]

#: Execution option that makes an SQLite transaction start with ``BEGIN IMMEDIATE``.
IMMEDIATE_OPTION = "baton_sqlite_immediate"
SQLITE_BUSY_TIMEOUT_MS = 10_000

_engines: dict[str, Engine] = {}
_engines_mutex = threading.Lock()


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


def _configure_sqlite(engine: Engine) -> None:
    memory = engine.url.database in (None, "", ":memory:")

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Autocommit at the driver level: pysqlite's own implicit BEGIN would otherwise
        # decide when transactions start, and never as IMMEDIATE.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        if not memory:
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        immediate = connection.get_execution_options().get(IMMEDIATE_OPTION, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def _build(url: str) -> Engine:
    if url.startswith("sqlite"):
        kwargs: dict[str, Any] = {"connect_args": {"check_same_thread": False}}
        if url in ("sqlite://", "sqlite:///:memory:"):
            # Every connection to ":memory:" is a new empty database; share one.
            kwargs["poolclass"] = StaticPool
        engine = create_engine(url, **kwargs)
        _configure_sqlite(engine)
        return engine
    return create_engine(url, pool_pre_ping=True, **pool_settings())


def get_engine(url: str | None = None) -> Engine:
    """The engine for ``url`` (default: :func:`database_url`), created once per URL."""
    key = normalize_url(url) if url else database_url()
    with _engines_mutex:
        engine = _engines.get(key)
        if engine is None:
            engine = _engines[key] = _build(key)
        return engine


def write_engine(engine: Engine) -> Engine:
    """A view of ``engine`` whose transactions take the write lock at BEGIN on SQLite.

    Use it for every session that writes; on PostgreSQL it is the same engine (row locks
    there are taken with ``SELECT ... FOR UPDATE``).
    """
    return engine.execution_options(**{IMMEDIATE_OPTION: True})


@contextmanager
def write_session(engine: Engine) -> Iterator[Session]:
    """A short write transaction for the repository functions: committed and closed on exit.

    Keep it short: on SQLite it holds the database's single write lock from its first
    statement to the end. Objects stay readable after it closes (``expire_on_commit=False``).
    """
    with Session(write_engine(engine), expire_on_commit=False) as session:
        yield session
        session.commit()


@contextmanager
def read_session(engine: Engine) -> Iterator[Session]:
    """A read-only unit of work; never blocks writers (WAL on SQLite, MVCC on PostgreSQL)."""
    # Closing (not rolling back) ends the transaction without expiring the loaded objects.
    with Session(engine, expire_on_commit=False) as session:
        yield session


def dispose_engine(url: str | None = None) -> None:
    """Close and forget the cached engine of ``url`` (tests, and forked workers)."""
    key = normalize_url(url) if url else database_url()
    with _engines_mutex:
        engine = _engines.pop(key, None)
    if engine is not None:
        engine.dispose()

