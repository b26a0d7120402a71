"""Cross-process locks: one thread's turns, and schema migration at start-up.

PostgreSQL: a session-level advisory lock held on a dedicated connection; the server drops
it when that connection ends, so a killed worker never leaves a thread locked. SQLite: an
``flock`` on a file in ``<database>.locks/`` beside the database; the kernel drops it when
the process dies. Locks on different names never wait for each other.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine

__all__ = ["advisory_key", "lock_dir", "named_lock", "pg_advisory_lock", "file_lock"]

_local_locks: dict[str, threading.Lock] = {}
_local_mutex = threading.Lock()


def advisory_key(name: str) -> int:
    """A stable signed 64-bit key for ``pg_advisory_lock`` (hash collisions only over-serialize)."""
    digest = hashlib.sha256(f"baton:{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def lock_dir(engine: Engine) -> Path | None:
    """``<database file>.locks`` for a file-backed SQLite engine, else None."""
    database = engine.url.database
    if engine.dialect.name != "sqlite" or database in (None, "", ":memory:"):
        return None
    return Path(os.path.abspath(database) + ".locks")


@contextmanager
def pg_advisory_lock(engine: Engine, name: str) -> Iterator[Connection]:
    """Hold ``pg_advisory_lock`` for ``name`` on a connection of its own; yields it."""
    key = advisory_key(name)
    connection = engine.connect()
    try:
        connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": key})
        # The lock belongs to the server session, not the transaction: end the transaction
        # so the connection does not sit "idle in transaction" for a whole turn.
        connection.commit()
        yield connection
    except BaseException:
        # The connection's state is unknown; closing it for real releases the lock.
        connection.invalidate()
        connection.close()
        raise
    else:
        try:
            connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": key})
            connection.commit()
        except Exception:
            connection.invalidate()
        connection.close()


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (created if missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # Each holder opens its own file description, so threads of one process exclude each
    # other too (flock locks belong to the open file description).
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


@contextmanager
def _process_lock(name: str) -> Iterator[None]:
    with _local_mutex:
        lock = _local_locks.setdefault(name, threading.Lock())
    with lock:
        yield


@contextmanager
def named_lock(engine: Engine, name: str) -> Iterator[None]:
    """Exclusive lock on ``name`` for this database, across processes where possible.

    In-memory SQLite is one process by nature, so a process-local lock is exact there.
    """
    if engine.dialect.name == "postgresql":
        with pg_advisory_lock(engine, name):
            yield
        return
    directory = lock_dir(engine)
    if directory is None:
        with _process_lock(f"{engine.url}:{name}"):
            yield
        return
    filename = hashlib.sha256(name.encode()).hexdigest()[:32] + ".lock"
    with file_lock(directory / filename):
        yield
