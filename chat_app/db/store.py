"""SqlStore: :class:`agent_core.storage._ports.SessionStore` on SQLModel (SQLite or PostgreSQL).

Behaves like :class:`agent_core.storage._memory_store.InMemoryStore`; the shared contract tests hold
both to that. Every method is one transaction. Writers lock the thread row first (``SELECT
... FOR UPDATE`` on PostgreSQL; on SQLite every write transaction is ``BEGIN IMMEDIATE``,
which already excludes other writers), so seq numbers, session numbers and pending delivery
are decided by one writer at a time per thread, and always in the same lock order.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from sqlalchemy import exists, func, insert, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlmodel import Session, col, select

from agent_core import (
    ContextEdit,
    NewMessage,
    PendingRecord,
    SessionRecord,
    StoredMessage,
    StoreError,
)
from agent_core.storage import MARK_ROLES, RowMark, delivered_meta, queue_slots, stored_path, utcnow
from agent_core.storage import parse_client_order as client_order
from agent_core.validation import sanitize_text
from chat_app.db.convert import (
    clean,
    message_columns,
    message_row,
    message_values,
    pending_record,
    session_record,
    stored_from_columns,
    stored_from_values,
    stored_message,
)
from chat_app.db.engine import write_engine
from chat_app.db.failures import DatabaseFailure, database_failure
from chat_app.db.fork import copy_thread
from chat_app.db.lease import TurnLeaseHold, check_fence, fence, turn_lease
from chat_app.db.locks import named_lock
from chat_app.db.models import (
    ChatSession,
    ContextEditRow,
    Message,
    PendingMessage,
    Thread,
    ThreadFile,
)
from chat_app.db.search import search_message_rows

_log = logging.getLogger(__name__)

__all__ = ["SqlStore"]

#: Attempts at creating session 1 when another writer may be creating it too.
_CREATE_ATTEMPTS = 3


class SqlStore:
    """Thread store on a SQLAlchemy engine. Threads themselves are created by
    :func:`chat_app.db.repo.create_thread`; the store refuses ids it does not know.

    ``_fault_hook`` is None in production. Tests set it to a callable taking a step name
    (``boundary_written``, ``session_opened``, ``pending_delivered``, ``committed``) to
    fail or kill the process at that point of :meth:`commit_reset`.
    """

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._writer = write_engine(engine)
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
            with Session(self._writer if write else self._engine, expire_on_commit=False) as db:
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

    # sessions -----------------------------------------------------------------
    def current_session(self, thread_id: str) -> SessionRecord:
        """The open (newest) session of the thread; session 1 is created on first use."""
        with self._tx(write=False) as db:
            row = self._latest(db, thread_id)
            if row is not None:
                return session_record(row)
        for attempt in range(_CREATE_ATTEMPTS):
            try:
                return self._create_first_session(thread_id)
            except StoreError as exc:
                # Only a lost race on uq_chat_session_thread_number is worth another try.
                if not isinstance(exc.__cause__, IntegrityError) or attempt + 1 == _CREATE_ATTEMPTS:
                    raise
        raise AssertionError("unreachable")

    def _create_first_session(self, thread_id: str) -> SessionRecord:
        with self._tx(write=True) as db:
            self._lock_turn(db, thread_id)
            row = self._latest(db, thread_id)
            if row is None:
                row = ChatSession(thread_id=thread_id, number=1)
                db.add(row)
                db.flush()
            return session_record(row)

    def sessions(self, thread_id: str) -> list[SessionRecord]:
        """All sessions of a thread, by number."""
        with self._tx(write=False) as db:
            query = (
                select(ChatSession)
                .where(ChatSession.thread_id == thread_id)
                .order_by(col(ChatSession.number))
            )
            return [session_record(row) for row in db.exec(query)]

    # messages -----------------------------------------------------------------
    def append(
        self, thread_id: str, session_id: str, messages: Sequence[NewMessage]
    ) -> list[StoredMessage]:
        """Store ``messages`` at the end of the thread, with consecutive seq numbers."""
        values = [message_values(thread_id, session_id, m) for m in messages]
        with self._tx(write=True) as db:
            return self._insert_rows(db, thread_id, values, session_id=session_id)

    def messages(self, session_id: str) -> list[StoredMessage]:
        """Every row of the session, by seq."""
        with self._tx(write=False) as db:
            query = (
                select(*message_columns())
                .where(Message.session_id == session_id)
                .order_by(col(Message.seq))
            )
            return [stored_from_columns(row) for row in db.exec(query)]

    def marks(self, session_id: str) -> list[RowMark]:
        """Three small columns of the session's replies and markers: read after every reply
        of every open tab, where loading whole messages (content, tool calls) cost most."""
        with self._tx(write=False) as db:
            query = (
                select(Message.seq, Message.role, Message.meta)
                .where(Message.session_id == session_id, col(Message.role).in_(MARK_ROLES))
                .order_by(col(Message.seq))
            )
            return [RowMark(seq, role, dict(meta or {})) for seq, role, meta in db.exec(query)]

    def tail_marks(self, session_id: str) -> list[RowMark]:
        """The session's last user row and the rows after it, as marks: whether a turn is
        still due for that message (read through ``ix_message_session_seq``)."""
        with self._tx(write=False) as db:
            last = (
                select(func.max(Message.seq))
                .where(Message.session_id == session_id, Message.role == "user")
                .scalar_subquery()
            )
            query = (
                select(Message.seq, Message.role, Message.meta)
                .where(Message.session_id == session_id, col(Message.seq) >= last)
                .order_by(col(Message.seq))
            )
            return [RowMark(seq, role, dict(meta or {})) for seq, role, meta in db.exec(query)]

    def add_context_edit(
        self, session_id: str, edit: ContextEdit, marker: NewMessage | None = None
    ) -> StoredMessage | None:
        """Record a context edit and its optional timeline marker in one transaction."""
        with self._tx(write=True) as db:
            owner = self._session_row(db, session_id)
            thread = self._lock_turn(db, owner.thread_id)
            count = db.exec(
                select(func.count())
                .select_from(ContextEditRow)
                .where(ContextEditRow.session_id == session_id)
            ).one()
            data = clean(edit.model_dump(mode="json"))
            db.add(ContextEditRow(session_id=session_id, position=count, data=data))
            if marker is None:
                return None
            (stored,) = self._store_rows(db, thread, session_id, [marker])
            return stored

    def context_edits(self, session_id: str) -> list[ContextEdit]:
        """The session's context edits in the order they were made."""
        with self._tx(write=False) as db:
            query = (
                select(ContextEditRow)
                .where(ContextEditRow.session_id == session_id)
                .order_by(col(ContextEditRow.position))
            )
            return [ContextEdit.model_validate(row.data) for row in db.exec(query)]

    def search_messages(
        self, thread_id: str, query: str, *, session_id: str | None = None, limit: int = 20
    ) -> list[StoredMessage]:
        """Original rows holding every word of ``query``, in the database's full-text index."""
        with self._tx(write=False) as db:
            rows = search_message_rows(db, thread_id, query, session_id=session_id, limit=limit)
            return [stored_message(row) for row in rows]

    def undo_context_edit(self, session_id: str, position: int) -> ContextEdit:
        """Mark the session's edit at ``position`` undone (see the port)."""
        with self._tx(write=True) as db:
            owner = self._session_row(db, session_id)
            self._lock_turn(db, owner.thread_id)
            row = db.exec(
                select(ContextEditRow).where(
                    ContextEditRow.session_id == session_id, ContextEditRow.position == position
                )
            ).first()
            if row is None:
                raise StoreError(f"session {session_id} has no context edit {position}")
            edit = ContextEdit.model_validate(row.data).model_copy(update={"undone": True})
            row.data = clean(edit.model_dump(mode="json"))
            return edit

    # files --------------------------------------------------------------------
    def read_file(self, thread_id: str, path: str) -> str | None:
        with self._tx(write=False) as db:
            row = db.get(ThreadFile, (thread_id, path))
            return None if row is None else row.content

    @staticmethod
    def _put_file(db: Session, thread_id: str, path: str, content: str) -> None:
        # Callers hold the thread lock, so get-then-insert cannot race another writer.
        # Every way into a workspace ends here: the one path rule is checked at the door.
        path, content = stored_path(path), sanitize_text(content)
        row = db.get(ThreadFile, (thread_id, path))
        if row is None:
            db.add(ThreadFile(thread_id=thread_id, path=path, content=content))
        else:
            row.content = content
            row.updated_at = utcnow()
        db.flush()

    def write_file(self, thread_id: str, path: str, content: str) -> None:
        with self._tx(write=True) as db:
            self._lock_turn(db, thread_id)
            self._put_file(db, thread_id, path, content)

    def apply_file_changes(
        self, thread_id: str, *, written: Mapping[str, str], deleted: Sequence[str]
    ) -> None:
        with self._tx(write=True) as db:
            self._lock_turn(db, thread_id)
            for path, content in written.items():
                self._put_file(db, thread_id, path, content)
            for path in deleted:
                row = db.get(ThreadFile, (thread_id, path))
                if row is not None:
                    db.delete(row)
            db.flush()

    def list_files(self, thread_id: str) -> list[str]:
        with self._tx(write=False) as db:
            paths = db.exec(select(ThreadFile.path).where(ThreadFile.thread_id == thread_id))
            # Sorted here, not in SQL: database collations disagree on punctuation order.
            return sorted(paths)

    # pending ------------------------------------------------------------------
    def enqueue_pending(
        self, thread_id: str, content: str, *, client_id: str | None = None
    ) -> PendingRecord:
        """Durably queue a user message; a ``client_id`` already queued returns its record."""
        with self._tx(write=True) as db:
            thread = self._lock_thread(db, thread_id)
            if client_id is not None:
                known = db.exec(
                    select(PendingMessage).where(
                        PendingMessage.thread_id == thread_id, PendingMessage.client_id == client_id
                    )
                ).first()
                if known is not None:
                    return pending_record(known)
            waiting = list(
                db.exec(
                    select(PendingMessage).where(
                        PendingMessage.thread_id == thread_id,
                        col(PendingMessage.delivered_session_id).is_(None),
                        col(PendingMessage.client_id).is_not(None),
                    )
                )
            )
            seq, moves = queue_slots(
                client_order(client_id),
                [(row.seq, row.client_id) for row in waiting],
                thread.next_pending_seq,
            )
            thread.next_pending_seq += 1
            moving = [row for row in waiting if row.seq in moves]
            for row in moving:  # through free slots: (thread, seq) is unique at every flush
                row.seq = -row.seq
            db.flush()
            for row in moving:
                row.seq = moves[-row.seq]
            row = PendingMessage(
                thread_id=thread_id, seq=seq, content=sanitize_text(content), client_id=client_id
            )
            db.add(row)
            db.flush()
            return pending_record(row)

    def has_client_message(self, thread_id: str, client_id_prefix: str) -> bool:
        with self._tx(write=False) as db:
            escaped = client_id_prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            found = db.exec(
                select(PendingMessage.id)
                .where(
                    PendingMessage.thread_id == thread_id,
                    col(PendingMessage.client_id).like(escaped + "%", escape="\\"),
                )
                .limit(1)
            ).first()
            return found is not None

    def pending(self, thread_id: str) -> list[PendingRecord]:
        """Undelivered pending messages, in send order."""
        with self._tx(write=False) as db:
            return [
                pending_record(row) for row in db.exec(self._undelivered(thread_id, PendingMessage))
            ]

    def _deliver(
        self, db: Session, thread: Thread, session_id: str, limit: int | None, queued: bool
    ) -> list[StoredMessage]:
        query = self._undelivered(thread.id, PendingMessage)
        waiting = list(db.exec(query if limit is None else query.limit(limit)))
        for row in waiting:
            row.delivered_session_id = session_id
        messages = [
            NewMessage(role="user", content=row.content, meta=delivered_meta(row.id, queued=queued))
            for row in waiting
        ]
        if waiting:  # marked as answering them, as deliver_pending does
            if thread.answering_seq is None:
                thread.answering_seq = thread.next_seq
            self._answering.add(thread.id)
        return self._store_rows(db, thread, session_id, messages)

    def deliver_pending(
        self,
        thread_id: str,
        session_id: str,
        *,
        limit: int | None = None,
        queued: bool = False,
    ) -> list[StoredMessage]:
        """Move undelivered pending messages into the session as user messages, exactly once.

        Asked before every model call, and nearly always with nothing queued: that is found
        by a read, without waiting for (and holding) SQLite's write lock."""
        with self._tx(write=False) as db:
            owner, waits = db.execute(
                select(
                    select(ChatSession.thread_id)
                    .where(ChatSession.id == session_id)
                    .scalar_subquery(),
                    exists(self._undelivered(thread_id, PendingMessage.id)),
                )
            ).one()
            if owner != thread_id:
                self._check_session(db, thread_id, session_id)  # says which is wrong
            if not waits:
                return []
        with self._tx(write=True) as db:
            query = self._undelivered(thread_id, PendingMessage.id, PendingMessage.content)
            waiting = db.execute(query if limit is None else query.limit(limit)).all()
            if not waiting:
                return []
            pending = PendingMessage.__table__
            db.execute(
                update(pending)
                .where(pending.c.id.in_([row.id for row in waiting]))
                .values(delivered_session_id=session_id)
            )
            # The thread is marked as answering them until the turn lets it go: a crash
            # leaves the mark, and the next start-up answers them once more.
            self._answering.add(thread_id)
            return self._insert_rows(
                db,
                thread_id,
                [
                    message_values(
                        thread_id,
                        session_id,
                        NewMessage(
                            role="user",
                            content=row.content,
                            meta=delivered_meta(row.id, queued=queued),
                        ),
                    )
                    for row in waiting
                ],
                answering=True,
            )

    @staticmethod
    def _undelivered(thread_id: str, *columns: Any) -> Any:
        return (
            select(*columns)
            .where(
                PendingMessage.thread_id == thread_id,
                col(PendingMessage.delivered_session_id).is_(None),
            )
            .order_by(col(PendingMessage.seq))
        )

    # reset --------------------------------------------------------------------
    def commit_reset(
        self,
        thread_id: str,
        *,
        old_session_id: str,
        trigger: str,
        utilization: float | None,
        model: str | None,
        handoff: dict[str, Any],
        handoff_path: str,
        handoff_markdown: str,
        context: Sequence[NewMessage],
    ) -> tuple[SessionRecord, list[StoredMessage]]:
        """End the old session and open the next one, all in one transaction (see the port)."""
        with self._tx(write=True) as db:
            thread = self._lock_turn(db, thread_id)
            old = self._latest(db, thread_id)
            if old is None or old.id != old_session_id or old.ended_at is not None:
                raise StoreError("the session was already reset by another run")
            now = utcnow()
            old.ended_at = now
            self._put_file(db, thread_id, handoff_path, handoff_markdown)
            self._fault("boundary_written")
            new = ChatSession(
                thread_id=thread_id,
                number=old.number + 1,
                started_at=now,
                trigger=sanitize_text(trigger),
                utilization=utilization,
                model=None if model is None else sanitize_text(model),
                handoff=clean(handoff),
                parent_id=old.id,
            )
            db.add(new)
            db.flush()
            rows = self._store_rows(db, thread, new.id, context)
            self._fault("session_opened")
            rows += self._deliver(db, thread, new.id, None, True)
            self._fault("pending_delivered")
            record = session_record(new)
        self._fault("committed")
        return record, rows

    def undo_reset(self, thread_id: str, session_id: str, *, handoff_path: str) -> SessionRecord:
        """Undo the reset that opened the open session, in one transaction (see the port)."""
        with self._tx(write=True) as db:
            self._lock_turn(db, thread_id)
            new = self._latest(db, thread_id)
            if new is None or new.id != session_id:
                raise StoreError("only the open session's reset can be undone")
            old = db.get(ChatSession, new.parent_id) if new.parent_id else None
            if old is None:
                raise StoreError("the first session was not opened by a reset")
            answered = db.exec(
                select(Message.id)
                .where(
                    Message.session_id == session_id, col(Message.role).in_(("assistant", "tool"))
                )
                .limit(1)
            ).first()
            if answered is not None:
                raise StoreError("the model has answered since the reset")
            for pending in db.exec(
                select(PendingMessage).where(PendingMessage.delivered_session_id == session_id)
            ):
                pending.delivered_session_id = None
            for model in (Message, ContextEditRow):
                for row in db.exec(select(model).where(model.session_id == session_id)):
                    db.delete(row)
            file = db.get(ThreadFile, (thread_id, handoff_path))
            if file is not None:
                db.delete(file)
            db.flush()
            db.delete(new)
            old.ended_at = None
            db.flush()
            return session_record(old)

    def fork_thread(
        self, source_thread_id: str, target_thread_id: str, *, before_seq: int
    ) -> list[SessionRecord]:
        """Copy the source up to its user row ``before_seq`` into the target (see the port)."""
        with self._tx(write=True) as db:
            # Both threads locked, always in the same order: two forks never deadlock.
            locked = {
                tid: self._lock_thread(db, tid)
                for tid in sorted({source_thread_id, target_thread_id})
            }
            return copy_thread(db, locked[source_thread_id], locked[target_thread_id], before_seq)

    def turn_lock(self, thread_id: str) -> AbstractContextManager[None]:
        """Serialize turns of one thread across processes; other threads never wait.

        PostgreSQL: a renewed, fenced lease (:mod:`chat_app.db.lease`): no connection is held
        for the turn, and a turn whose lease was lost cannot write. SQLite: an ``flock``
        beside the database, which only the holder's death releases.
        """
        return self._marked_turn(thread_id)

    @contextmanager
    def _marked_turn(self, thread_id: str) -> Iterator[None]:
        lock = (
            self._leased_turn(thread_id)
            if self._engine.dialect.name == "postgresql"
            else named_lock(self._engine, f"turn:{thread_id}")
        )
        with lock:
            try:
                yield
            finally:
                # Before the thread is let go: whoever takes it next finds no mark of a
                # turn that ended (answered, stopped or failed: anything but a crash).
                if thread_id in self._answering:
                    self._answering.discard(thread_id)
                    self._clear_answering(thread_id)

    def _clear_answering(self, thread_id: str) -> None:
        threads = Thread.__table__
        try:
            with self._tx(write=True) as db:
                db.execute(
                    update(threads).where(threads.c.id == thread_id).values(answering_seq=None)
                )
        except StoreError:
            # The turn ended all the same; the mark left makes the next start-up look at
            # the thread, which then finds its message answered and leaves it.
            _log.warning("could not clear the answering mark of thread %s", thread_id)

    @contextmanager
    def _leased_turn(self, thread_id: str) -> Iterator[None]:
        with turn_lease(self._engine, thread_id) as hold:
            self._leases[thread_id] = hold
            try:
                yield
            finally:
                self._leases.pop(thread_id, None)

    # turns cut by a crash -------------------------------------------------------
    def cut_turns(self) -> list[tuple[str, str]]:
        """(thread id, owner) of every thread marked as answering: a turn of it runs now,
        in some process, or was cut by a crash. :meth:`take_cut_turn` tells which."""
        with self._tx(write=False) as db:
            rows = db.exec(
                select(Thread.id, Thread.owner).where(col(Thread.answering_seq).is_not(None))
            )
            return [(row[0], row[1]) for row in rows]

    def take_cut_turn(self, thread_id: str) -> int | None:
        """Hold the thread's turn lock while calling this: the seq of the first message the
        cut turn had taken (its mark removed, so it is taken once), or None when no turn
        was cut (the mark of a turn that was running went when it let the thread go)."""
        threads = Thread.__table__
        with self._tx(write=True) as db:
            seq = db.execute(
                select(threads.c.answering_seq).where(threads.c.id == thread_id)
            ).scalar_one_or_none()
            if seq is not None:
                db.execute(
                    update(threads).where(threads.c.id == thread_id).values(answering_seq=None)
                )
            return seq
