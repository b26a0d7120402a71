"""One SQLAlchemy engine per database URL, configured for Baton's write patterns.

SQLite: WAL so readers never wait for the writer, a 10 s busy timeout so concurrent writers
queue instead of failing, foreign keys on so ``ON DELETE CASCADE`` works, and transactions
begun by the driver-agnostic ``begin`` hook so writers can ask for ``BEGIN IMMEDIATE`` (taking
the write lock up front; a deferred transaction that upgrades to writing can fail at once with
"database is locked" under WAL, whatever the timeout). PostgreSQL: a connection that sat in the
pool for a second or more is pinged before use (:func:`_ping_idle_connections`), so a
restarted server costs one reconnect, not one failed request. Reads on PostgreSQL run in
autocommit (:func:`read_engine`): no BEGIN and ROLLBACK round trips around every read.
"""

from __future__ import annotations

import sqlite3
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DisconnectionError, OperationalError
from sqlalchemy.pool import StaticPool
from sqlmodel import Session

from agent_core.runtime import in_start_lane
from chat_app.db.settings import database_url, normalize_url, pool_settings

__all__ = [
    "WriterQueue",
    "get_engine",
    "read_engine",
    "write_engine",
    "write_session",
    "read_session",
    "dispose_engine",
    "is_sqlite",
]

#: Execution option that makes an SQLite transaction start with ``BEGIN IMMEDIATE``.
IMMEDIATE_OPTION = "baton_sqlite_immediate"
SQLITE_BUSY_TIMEOUT_MS = 10_000
SQLITE_POOL_SIZE, SQLITE_POOL_OVERFLOW = 16, 32

_engines: dict[str, Engine] = {}
_engines_mutex = threading.Lock()
_readers: weakref.WeakKeyDictionary[Engine, Engine] = weakref.WeakKeyDictionary()


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

    if memory:  # one shared connection (StaticPool): nothing to queue

        @event.listens_for(engine, "begin")
        def _on_begin_shared(connection: Any) -> None:
            immediate = connection.get_execution_options().get(IMMEDIATE_OPTION, False)
            connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

        return
    _queue_writers(engine)


class WriterQueue:
    """A lock whose urgent waiters go before the others.

    SQLite has one write lock, and under many chats it is busy most of the time: a turn's
    start (storing the user's message, taking the turn lock, delivering it) made three or
    four writes, each waiting behind the writes of every turn under way, and the message's
    first words waited for all of them. The calls of a starting run (:mod:`agent_core.runtime._lanes`)
    are few and short; they take the lock first, the others wait at most that much longer.
    """

    def __init__(self) -> None:
        # One mutex, two queues: a release wakes one waiter (an urgent one if any), as a
        # plain lock does, not every writer of the worker to fight over the GIL.
        mutex = threading.Lock()
        self._urgent_turn = threading.Condition(mutex)
        self._normal_turn = threading.Condition(mutex)
        self._held = False
        self._urgent = 0  # urgent waiters

    def acquire(self, timeout: float, *, urgent: bool = False) -> bool:
        turn = self._urgent_turn if urgent else self._normal_turn
        with turn:
            self._urgent += urgent
            taken = False
            try:
                taken = turn.wait_for(
                    lambda: not self._held and (urgent or not self._urgent), timeout
                )
                if taken:
                    self._held = True
                return taken
            finally:
                self._urgent -= urgent
                if not taken and not self._held:
                    self._wake_next()  # it gave up (or failed) with the lock free

    def release(self) -> None:
        with self._urgent_turn:
            self._held = False
            self._wake_next()

    def _wake_next(self) -> None:
        (self._urgent_turn if self._urgent else self._normal_turn).notify()


def _queue_writers(engine: Engine) -> None:
    """This process's writers take SQLite's write lock one after the other, in a
    :class:`WriterQueue` held from ``BEGIN IMMEDIATE`` until the commit or rollback is done;
    a starting run's writes (:func:`agent_core.runtime._lanes.starting`) go first.

    Without it, writers that find the lock taken wait in SQLite's busy handler, which sleeps
    (1, 2, 5, ... 100 ms) and retries: the lock sits free while they sleep, and under many
    chats the worker's writes slowed to a crawl (and a start lane of more threads made it
    worse). Writers of other processes still queue in the busy handler.
    """
    writer = WriterQueue()
    holder: list[Any] = [None]  # the DBAPI connection holding ``writer``
    timeout = SQLITE_BUSY_TIMEOUT_MS / 1000

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        if not connection.get_execution_options().get(IMMEDIATE_OPTION, False):
            connection.exec_driver_sql("BEGIN")
            return
        if not writer.acquire(timeout, urgent=in_start_lane()):
            raise OperationalError(
                "BEGIN IMMEDIATE",
                None,
                sqlite3.OperationalError(
                    "database is locked (this worker's writers queued too long)"
                ),
            )
        holder[0] = connection.connection.dbapi_connection
        try:
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        except BaseException:
            _release(holder[0])
            raise

    def _release(connection: Any) -> None:
        # The dialect hooks get the pool's wrapper of the connection, the pool events the
        # DBAPI connection itself.
        dbapi_connection = getattr(connection, "dbapi_connection", connection)
        if holder[0] is not None and holder[0] is dbapi_connection:
            holder[0] = None
            writer.release()

    dialect = engine.dialect
    commit, rollback = dialect.do_commit, dialect.do_rollback

    def do_commit(dbapi_connection: Any) -> None:
        try:
            commit(dbapi_connection)
        finally:
            _release(dbapi_connection)

    def do_rollback(dbapi_connection: Any) -> None:
        try:
            rollback(dbapi_connection)
        finally:
            _release(dbapi_connection)

    # The dialect's own hooks (per engine): the lock goes once SQLite's lock is gone, after
    # the COMMIT, not before it as the ``commit`` event would.
    dialect.do_commit, dialect.do_rollback = do_commit, do_rollback

    # A connection that leaves without either (invalidated after an error, closed) must
    # not keep the lock: every writer of the process would wait on it.
    for name in ("checkin", "invalidate", "soft_invalidate", "close", "detach"):
        event.listen(engine.pool, name, lambda dbapi_connection, *_: _release(dbapi_connection))


def _build(url: str) -> Engine:
    # A statement's parameters are what users typed: they never go into an error's text
    # (which reaches logs and, unless caught, pages).
    if url.startswith("sqlite"):
        kwargs: dict[str, Any] = {
            "connect_args": {"check_same_thread": False},
            "hide_parameters": True,
        }
        if url in ("sqlite://", "sqlite:///:memory:"):
            # Every connection to ":memory:" is a new empty database; share one.
            kwargs["poolclass"] = StaticPool
        else:
            # A connection for every thread that may hold one at once (the executor's two
            # lanes, agent_core.runtime._lanes, the status reader, the event loop) with room to
            # spare: an SQLite connection is a file handle, and a thread waiting for one
            # while another waits for the write lock it holds stalls the worker.
            kwargs.update(pool_size=SQLITE_POOL_SIZE, max_overflow=SQLITE_POOL_OVERFLOW)
        engine = create_engine(url, **kwargs)
        _configure_sqlite(engine)
        return engine
    engine = create_engine(url, hide_parameters=True, **pool_settings())
    _ping_idle_connections(engine)
    return engine


#: A PostgreSQL connection that sat in the pool this long is pinged before it is used.
PING_AFTER_IDLE_SECONDS = 1.0


def _ping_idle_connections(engine: Engine) -> None:
    """Ping a pooled connection before use only when it sat idle for
    :data:`PING_AFTER_IDLE_SECONDS`; one that fails is replaced (the pool retries the checkout).

    SQLAlchemy's ``pool_pre_ping`` pings at every checkout, and every store call is a
    transaction of its own: under 100 chats, pings were 30% of the turn process's waits on
    PostgreSQL (py-spy). A server restart or failover takes longer than the second, so the
    connections it dropped are pinged and replaced. Were every connection dropped in an
    instant, one used within that second fails its transaction, and the pool then replaces
    all that are older than the failure (SQLAlchemy's invalidation of the pool).
    """

    @event.listens_for(engine.pool, "checkin")
    def _idle_from(_dbapi_connection: Any, record: Any) -> None:
        if record is not None:
            record.info["baton_idle_since"] = time.monotonic()

    @event.listens_for(engine.pool, "checkout")
    def _ping_if_idle(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        since = record.info.get("baton_idle_since")
        if since is None or time.monotonic() - since < PING_AFTER_IDLE_SECONDS:
            return  # new, or back in the pool a moment ago
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as error:
            raise DisconnectionError("a pooled connection is gone") from error


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


def read_engine(engine: Engine) -> Engine:
    """A view of ``engine`` for sessions that only read (and at most insert a missing default
    row, a statement of its own).

    On PostgreSQL its connections run in autocommit. Under READ COMMITTED, the isolation the
    app runs at, each statement of a transaction reads its own snapshot anyway, so a read
    transaction's BEGIN and its closing ROLLBACK were two round trips that bought nothing;
    the reads of a chat page's load sent 55 times, now 29 (the driver sends each on its own). On
    SQLite the same engine: a read transaction there is one snapshot of the WAL for all its
    statements, and it costs no round trip.
    """
    if is_sqlite(engine):
        return engine
    reader = _readers.get(engine)
    if reader is None:  # made once per engine: a view costs 28 µs to make
        reader = _readers[engine] = engine.execution_options(isolation_level="AUTOCOMMIT")
    return reader


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
    with Session(read_engine(engine), expire_on_commit=False) as session:
        yield session


def dispose_engine(url: str | None = None) -> None:
    """Close and forget the cached engine of ``url`` (tests, and forked workers)."""
    key = normalize_url(url) if url else database_url()
    with _engines_mutex:
        engine = _engines.pop(key, None)
    if engine is not None:
        engine.dispose()
