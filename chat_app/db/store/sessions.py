"""A thread's sessions, their rows, marks and context edits."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from agent_core import (
    ContextEdit,
    NewMessage,
    SessionRecord,
    StoredMessage,
    StoreError,
)
from agent_core.storage import MARK_ROLES, RowMark
from chat_app.db.convert import (
    clean,
    message_columns,
    message_values,
    session_record,
    stored_from_columns,
    stored_message,
)
from chat_app.db.models import (
    ChatSession,
    ContextEditRow,
    Message,
)
from chat_app.db.search import search_message_rows
from chat_app.db.store.core import StoreCore

#: Attempts at creating session 1 when another writer may be creating it too.
_CREATE_ATTEMPTS = 3


class SessionRows(StoreCore):
    """The port's sessions, rows, marks, context edits and message search."""

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

    def marks(self, session_id: str, roles: Sequence[str] = MARK_ROLES) -> list[RowMark]:
        """Three small columns of the session's replies and markers (those of ``roles``):
        read after every reply of every open tab, where loading whole messages (content,
        tool calls) cost most."""
        wanted = [role for role in MARK_ROLES if role in roles]
        with self._tx(write=False) as db:
            query = (
                select(Message.seq, Message.role, Message.meta)
                .where(Message.session_id == session_id, col(Message.role).in_(wanted))
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
