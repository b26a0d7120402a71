"""Messages queued while a turn runs, and their delivery into a session."""

from __future__ import annotations

from typing import Any

from sqlalchemy import exists, update
from sqlmodel import Session, col, select

from agent_core import (
    NewMessage,
    PendingRecord,
    StoredMessage,
)
from agent_core.storage import delivered_meta, queue_slots
from agent_core.storage import parse_client_order as client_order
from agent_core.validation import sanitize_text
from chat_app.db.convert import (
    message_values,
    pending_record,
)
from chat_app.db.models import (
    ChatSession,
    PendingMessage,
    Thread,
)
from chat_app.db.store.core import StoreCore


class PendingQueue(StoreCore):
    """The port's queue: messages sent while a turn runs, and their delivery."""

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
