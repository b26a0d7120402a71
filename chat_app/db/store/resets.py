"""A reset in one transaction, its undo, and a fork of a thread."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlmodel import col, select

from agent_core import (
    NewMessage,
    SessionRecord,
    StoredMessage,
    StoreError,
)
from agent_core.storage import utcnow
from agent_core.validation import sanitize_text
from chat_app.db.convert import (
    clean,
    session_record,
)
from chat_app.db.fork import copy_thread
from chat_app.db.models import (
    ChatSession,
    ContextEditRow,
    Message,
    PendingMessage,
    ThreadFile,
)
from chat_app.db.store.files import WorkspaceFiles
from chat_app.db.store.pending import PendingQueue


class Resets(PendingQueue, WorkspaceFiles):
    """The port's reset (its handoff file and queued messages in the same transaction),
    its undo, and forks."""

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
