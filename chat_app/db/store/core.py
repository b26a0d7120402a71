"""The base of SqlStore (:class:`agent_core.storage._ports.SessionStore` on SQLModel (SQLite or PostgreSQL).

Behaves like :class:`agent_core.storage._memory_store.InMemoryStore`; the shared contract tests hold
both to that. Every method is one transaction. Writers lock the thread row first (``SELECT
... FOR UPDATE`` on PostgreSQL; on SQLite every write transaction is ``BEGIN IMMEDIATE``,
which already excludes other writers), so seq numbers, session numbers and pending delivery
are decided by one writer at a time per thread, and always in the same lock order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from sqlalchemy import exists, func, insert, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, select

from agent_core import (
    NewMessage,
    StoredMessage,
    StoreError,
)
from agent_core.storage import utcnow
from chat_app.db.convert import (
    message_row,
    stored_from_values,
    stored_message,
)
from chat_app.db.engine import read_engine, write_engine
from chat_app.db.failures import DatabaseFailure, database_failure
from chat_app.db.lease import LEASE_SECONDS, TurnLeaseHold, check_fence, fence
from chat_app.db.models import (
    ChatSession,
    Message,
    Thread,
)


class StoreCore:
    """What every part of :class:`~chat_app.db.store.SqlStore` stands on: the engines, the
    transaction, the thread and turn locks, and the numbering and insert of rows."""

    def __init__(
        self, engine: Engine, *, lease_seconds: float = LEASE_SECONDS, holder_tag: str = ""
    ) -> None:
        """``lease_seconds`` and ``holder_tag``: the turn leases' length and the tag they
        carry (the app's ``Settings.turn_lease`` and ``Settings.turn_holder``)."""
        self._engine = engine
        self._lease_seconds = lease_seconds
        self._holder_tag = holder_tag
        self._writer = write_engine(engine)
        self._reader = read_engine(engine)
        self._fault_hook: Callable[[str], None] | None = None
        # PostgreSQL: the turn leases this store holds now, checked by every turn write.
        self._leases: dict[str, TurnLeaseHold] = {}
        # Threads whose queued messages a turn of this process took: their answering mark
        # is cleared when the turn lets the thread go.
        self._answering: set[str] = set()

    # plumbing -----------------------------------------------------------------
    @contextmanager
    def _tx(self, *, write: bool) -> Iterator[Session]:
        try:
            with Session(self._writer if write else self._reader, expire_on_commit=False) as db:
                yield db
                db.commit()
        # OverflowError: sqlite3 refuses integers beyond 64 bits before SQLAlchemy sees them.
        except (SQLAlchemyError, OverflowError) as exc:
            # In plain words: the driver's text quotes SQL, and may quote what was typed.
            failure = database_failure(exc) or DatabaseFailure(
                "refused", "The database refused the change", ""
            )
            raise StoreError(failure.text(nothing_stored=True)) from exc

    def _fault(self, step: str) -> None:
        if self._fault_hook is not None:
            self._fault_hook(step)

    @staticmethod
    def _lock_thread(db: Session, thread_id: str) -> Thread:
        thread = db.exec(select(Thread).where(Thread.id == thread_id).with_for_update()).first()
        if thread is None:
            raise StoreError(f"unknown thread {thread_id}")
        return thread

    def _lock_turn(self, db: Session, thread_id: str) -> Thread:
        """Lock the thread row for a write of its turn, fenced by the turn's lease if held
        (in the same statement: a statement less for every write of every turn)."""
        hold = self._leases.get(thread_id)
        if hold is None:
            return self._lock_thread(db, thread_id)
        thread = db.exec(
            select(Thread).where(Thread.id == thread_id, fence(hold)).with_for_update(of=Thread)
        ).first()
        if thread is None:  # why not is read only now
            check_fence(db, hold)
            raise StoreError(f"unknown thread {thread_id}")
        return thread

    @staticmethod
    def _session_row(db: Session, session_id: str) -> ChatSession:
        row = db.get(ChatSession, session_id)
        if row is None:
            raise StoreError(f"unknown session {session_id}")
        return row

    @staticmethod
    def _latest(db: Session, thread_id: str) -> ChatSession | None:
        query = (
            select(ChatSession)
            .where(ChatSession.thread_id == thread_id)
            .order_by(col(ChatSession.number).desc())
            .limit(1)
        )
        return db.exec(query).first()

    @staticmethod
    def _store_rows(
        db: Session, thread: Thread, session_id: str, messages: Sequence[NewMessage]
    ) -> list[StoredMessage]:
        if not messages:
            return []
        first = thread.next_seq
        thread.next_seq = first + len(messages)
        thread.updated_at = utcnow()
        rows = [message_row(thread.id, session_id, first + i, m) for i, m in enumerate(messages)]
        db.add_all(rows)
        db.flush()
        return [stored_message(row) for row in rows]

    @staticmethod
    def _check_session(db: Session, thread_id: str, session_id: str) -> None:
        owner = db.execute(
            select(ChatSession.thread_id).where(ChatSession.id == session_id)
        ).scalar_one_or_none()
        if owner is None:
            raise StoreError(f"unknown session {session_id}")
        if owner != thread_id:
            raise StoreError("session belongs to another thread")

    def _insert_rows(
        self,
        db: Session,
        thread_id: str,
        values: list[dict[str, Any]],
        *,
        session_id: str | None = None,
        answering: bool = False,
    ) -> list[StoredMessage]:
        """Number and insert rows made by :func:`message_values` before the transaction.

        The turn writes of every chat of a worker queue for SQLite's one write lock, so what
        runs while it is held is kept to two statements: the thread's counter taken (its
        row locked on PostgreSQL) on condition that ``session_id``, when given, is one of
        the thread's sessions and that the turn's lease, when held, is still its own (why
        not is read only when it is not), then the rows inserted.
        """
        if not values:
            return []
        threads, sessions = Thread.__table__, ChatSession.__table__
        counter = update(threads).where(threads.c.id == thread_id)
        if session_id is not None:
            counter = counter.where(
                exists().where(sessions.c.id == session_id, sessions.c.thread_id == thread_id)
            )
        changes: dict[str, Any] = {
            "next_seq": threads.c.next_seq + len(values),
            "updated_at": utcnow(),
        }
        if answering:  # in the same statement: the first of these rows, unless one waits
            changes["answering_seq"] = func.coalesce(threads.c.answering_seq, threads.c.next_seq)
        hold = self._leases.get(thread_id)
        if hold is not None:  # the turn's lease, checked (and kept) by the same statement
            counter = counter.where(fence(hold))
        end = db.execute(
            counter.values(**changes).returning(threads.c.next_seq)
        ).scalar_one_or_none()
        if end is None:  # why not is read only now
            if hold is not None:
                check_fence(db, hold)
            if session_id is not None:
                self._check_session(db, thread_id, session_id)
            raise StoreError(f"unknown thread {thread_id}")
        first = end - len(values)
        for index, row in enumerate(values):
            row["seq"] = first + index
        db.execute(insert(Message.__table__), values)
        return [stored_from_values(row) for row in values]
