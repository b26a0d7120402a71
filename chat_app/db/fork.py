"""The SQL half of :meth:`agent_core.storage._ports.SessionStore.fork_thread`: copy a thread's
sessions, rows, context edits and files up to one user message into another thread.

Called by :class:`chat_app.db.store.SqlStore` inside its transaction, with both thread rows
locked. Which edits and files go along is decided by :mod:`agent_core.storage._fork`, as in memory.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlmodel import Session, col, select

from agent_core import ContextEdit, SessionRecord, StoreError
from agent_core.storage import kept_edits, kept_files
from chat_app.db.convert import clean, session_record, stored_message
from chat_app.db.models import ChatSession, ContextEditRow, Message, Thread, ThreadFile, new_id

__all__ = ["copy_thread"]


def copy_thread(
    db: Session, source: Thread, target: Thread, before_seq: int
) -> list[SessionRecord]:
    """Copy ``source`` as it was before its user row ``before_seq`` into the empty ``target``."""
    cut = db.exec(
        select(Message).where(
            Message.thread_id == source.id, Message.seq == before_seq, Message.role == "user"
        )
    ).first()
    if cut is None:
        raise StoreError(f"message {before_seq} is not a user message of the thread")
    if db.exec(select(ChatSession.id).where(ChatSession.thread_id == target.id)).first():
        raise StoreError("the fork's thread already holds sessions")
    last = db.get(ChatSession, cut.session_id)
    assert last is not None  # the message's foreign key
    sessions = list(
        db.exec(
            select(ChatSession)
            .where(
                ChatSession.thread_id == source.id,
                ChatSession.number <= last.number,
            )
            .order_by(col(ChatSession.number))
        )
    )
    ids = {s.id: new_id() for s in sessions}
    copies = []
    for old in sessions:
        copy = ChatSession(
            id=ids[old.id],
            thread_id=target.id,
            number=old.number,
            trigger=old.trigger,
            utilization=old.utilization,
            model=old.model,
            handoff=old.handoff,
            parent_id=ids.get(old.parent_id or ""),
            started_at=old.started_at,
            ended_at=None if old.id == last.id else old.ended_at,
        )
        db.add(copy)
        db.flush()  # parents first: parent_id references the copy before it
        copies.append(copy)
        _copy_rows(db, old, copy, target.id, before_seq)
    files = {
        row.path: row
        for row in db.exec(select(ThreadFile).where(ThreadFile.thread_id == source.id))
    }
    db.add_all(
        ThreadFile(thread_id=target.id, path=name, content=files[path].content)
        for name, path in kept_files(files, last.number).items()
    )
    target.next_seq = before_seq
    db.flush()
    return [session_record(copy) for copy in copies]


_COLUMNS = (
    "role, content, tool_calls, tool_call_id, name, todo_id, token_count, model, meta, "
    "created_at, seq"
)
# A new 32-hex id per copied row, made by the database: the rows never pass through Python.
_NEW_ID = {
    "postgresql": "replace(gen_random_uuid()::text, '-', '')",
    "sqlite": "lower(hex(randomblob(16)))",
}


def _copy_rows(
    db: Session, old: ChatSession, copy: ChatSession, thread_id: str, before_seq: int
) -> None:
    new_id_sql = _NEW_ID[db.get_bind().dialect.name]
    db.execute(
        text(
            f"INSERT INTO message (id, thread_id, session_id, {_COLUMNS}) "
            f"SELECT {new_id_sql}, :thread_id, :copy_id, {_COLUMNS} FROM message "
            "WHERE session_id = :old_id AND seq < :before_seq"
        ),
        {"thread_id": thread_id, "copy_id": copy.id, "old_id": old.id, "before_seq": before_seq},
    )
    # Only the markers after the cut matter to which edits are kept.
    later_markers = db.exec(
        select(Message).where(
            Message.session_id == old.id, Message.seq >= before_seq, Message.role == "event"
        )
    )
    edits = [
        ContextEdit.model_validate(row.data)
        for row in db.exec(
            select(ContextEditRow)
            .where(ContextEditRow.session_id == old.id)
            .order_by(col(ContextEditRow.position))
        )
    ]
    kept = kept_edits(edits, [stored_message(row) for row in later_markers], before_seq)
    db.add_all(
        ContextEditRow(
            session_id=copy.id, position=position, data=clean(edit.model_dump(mode="json"))
        )
        for position, edit in enumerate(kept)
    )
    db.flush()
