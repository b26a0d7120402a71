"""In-memory :class:`~agent_core.storage._ports.SessionStore` for tests and the replay CLI."""

from __future__ import annotations

import threading
import uuid
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from agent_core.errors import StoreError
from agent_core.storage._client_order import client_order, queue_slots
from agent_core.storage._fork import kept_edits, kept_files
from agent_core.storage._records import (
    MARK_ROLES,
    ContextEdit,
    NewMessage,
    PendingRecord,
    RowMark,
    SessionRecord,
    StoredMessage,
    delivered_meta,
    utcnow,
)
from agent_core.storage._search import matches, score, search_terms, searchable_text
from agent_core.storage._workspace import stored_path

__all__ = ["InMemoryStore"]


def _new_id() -> str:
    return uuid.uuid4().hex


class InMemoryStore:
    """Dict-backed store. Thread-safe; one process only."""

    def __init__(self) -> None:
        self._mutex = threading.RLock()
        self._sessions: dict[str, list[SessionRecord]] = defaultdict(list)
        self._messages: dict[str, list[StoredMessage]] = defaultdict(list)
        self._edits: dict[str, list[ContextEdit]] = defaultdict(list)
        self._files: dict[str, dict[str, str]] = defaultdict(dict)
        self._pending: dict[str, list[PendingRecord]] = defaultdict(list)
        self._seq: dict[str, int] = defaultdict(int)
        self._pending_seq: dict[str, int] = defaultdict(int)
        self._turn_locks: dict[str, threading.Lock] = defaultdict(threading.Lock)

    # sessions -----------------------------------------------------------------
    def current_session(self, thread_id: str) -> SessionRecord:
        with self._mutex:
            sessions = self._sessions[thread_id]
            if not sessions:
                sessions.append(
                    SessionRecord(id=_new_id(), thread_id=thread_id, number=1, started_at=utcnow())
                )
            return sessions[-1]

    def sessions(self, thread_id: str) -> list[SessionRecord]:
        with self._mutex:
            return list(self._sessions[thread_id])

    def _session(self, session_id: str) -> SessionRecord:
        for sessions in self._sessions.values():
            for record in sessions:
                if record.id == session_id:
                    return record
        raise StoreError(f"unknown session {session_id}")

    # messages -----------------------------------------------------------------
    def _store(self, thread_id: str, session_id: str, message: NewMessage) -> StoredMessage:
        self._seq[thread_id] += 1
        stored = StoredMessage(
            **message.model_dump(),
            id=_new_id(),
            thread_id=thread_id,
            session_id=session_id,
            seq=self._seq[thread_id],
            created_at=utcnow(),
        )
        self._messages[session_id].append(stored)
        return stored

    def append(
        self, thread_id: str, session_id: str, messages: Sequence[NewMessage]
    ) -> list[StoredMessage]:
        with self._mutex:
            if self._session(session_id).thread_id != thread_id:
                raise StoreError("session belongs to another thread")
            return [self._store(thread_id, session_id, m) for m in messages]

    def messages(self, session_id: str) -> list[StoredMessage]:
        with self._mutex:
            return list(self._messages[session_id])

    def marks(self, session_id: str, roles: Sequence[str] = MARK_ROLES) -> list[RowMark]:
        wanted = set(roles) & set(MARK_ROLES)
        with self._mutex:
            return [
                RowMark(m.seq, m.role, dict(m.meta))
                for m in self._messages[session_id]
                if m.role in wanted
            ]

    def tail_marks(self, session_id: str) -> list[RowMark]:
        with self._mutex:
            rows = self._messages[session_id]
            last = max((i for i, m in enumerate(rows) if m.role == "user"), default=None)
            return (
                [] if last is None else [RowMark(m.seq, m.role, dict(m.meta)) for m in rows[last:]]
            )

    def add_context_edit(
        self, session_id: str, edit: ContextEdit, marker: NewMessage | None = None
    ) -> StoredMessage | None:
        with self._mutex:
            record = self._session(session_id)
            self._edits[session_id].append(edit)
            return None if marker is None else self._store(record.thread_id, session_id, marker)

    def context_edits(self, session_id: str) -> list[ContextEdit]:
        with self._mutex:
            return list(self._edits[session_id])

    def undo_context_edit(self, session_id: str, position: int) -> ContextEdit:
        with self._mutex:
            edits = self._edits.get(session_id, [])
            if not 0 <= position < len(edits):
                raise StoreError(f"session {session_id} has no context edit {position}")
            edits[position] = edits[position].model_copy(update={"undone": True})
            return edits[position]

    def search_messages(
        self, thread_id: str, query: str, *, session_id: str | None = None, limit: int = 20
    ) -> list[StoredMessage]:
        terms = search_terms(query)
        with self._mutex:
            found = []
            for session in self._sessions[thread_id]:
                if session_id is not None and session.id != session_id:
                    continue
                for row in self._messages[session.id]:
                    text = searchable_text(row.content, row.tool_calls)
                    if row.role not in ("event", "system") and matches(text, terms):
                        found.append((score(text, terms), row))
        found.sort(key=lambda pair: (-pair[0], -pair[1].seq))
        return [row for _, row in found[: max(limit, 0)]]

    # files --------------------------------------------------------------------
    def read_file(self, thread_id: str, path: str) -> str | None:
        with self._mutex:
            return self._files[thread_id].get(path)

    def write_file(self, thread_id: str, path: str, content: str) -> None:
        stored_path(path)  # as the SQL store refuses it
        with self._mutex:
            self._files[thread_id][path] = content

    def list_files(self, thread_id: str) -> list[str]:
        with self._mutex:
            return sorted(self._files[thread_id])

    def apply_file_changes(
        self, thread_id: str, *, written: Mapping[str, str], deleted: Sequence[str]
    ) -> None:
        for path in written:  # all checked before any is written
            stored_path(path)
        with self._mutex:
            files = self._files[thread_id]
            files.update(written)
            for path in deleted:
                files.pop(path, None)

    # pending ------------------------------------------------------------------
    def enqueue_pending(
        self, thread_id: str, content: str, *, client_id: str | None = None
    ) -> PendingRecord:
        with self._mutex:
            if client_id is not None:
                for known in self._pending[thread_id]:
                    if known.client_id == client_id:
                        return known
            queue = self._pending[thread_id]
            seq, moves = queue_slots(
                client_order(client_id),
                [(p.seq, p.client_id) for p in queue if p.delivered_session_id is None],
                self._pending_seq[thread_id] + 1,
            )
            self._pending_seq[thread_id] += 1
            record = PendingRecord(
                id=_new_id(),
                thread_id=thread_id,
                seq=seq,
                content=content,
                created_at=utcnow(),
                client_id=client_id,
            )
            queue[:] = sorted(
                [p.model_copy(update={"seq": moves.get(p.seq, p.seq)}) for p in queue] + [record],
                key=lambda p: p.seq,
            )
            return record

    def has_client_message(self, thread_id: str, client_id_prefix: str) -> bool:
        with self._mutex:
            return any(
                (p.client_id or "").startswith(client_id_prefix) for p in self._pending[thread_id]
            )

    def pending(self, thread_id: str) -> list[PendingRecord]:
        with self._mutex:
            return [p for p in self._pending[thread_id] if p.delivered_session_id is None]

    def _deliver(
        self, thread_id: str, session_id: str, limit: int | None, queued: bool
    ) -> list[StoredMessage]:
        delivered: list[StoredMessage] = []
        queue = self._pending[thread_id]
        for index, record in enumerate(queue):
            if record.delivered_session_id is not None:
                continue
            if limit is not None and len(delivered) >= limit:
                break
            queue[index] = record.model_copy(update={"delivered_session_id": session_id})
            delivered.append(
                self._store(
                    thread_id,
                    session_id,
                    NewMessage(
                        role="user",
                        content=record.content,
                        meta=delivered_meta(record.id, queued=queued),
                    ),
                )
            )
        return delivered

    def deliver_pending(
        self,
        thread_id: str,
        session_id: str,
        *,
        limit: int | None = None,
        queued: bool = False,
    ) -> list[StoredMessage]:
        with self._mutex:
            return self._deliver(thread_id, session_id, limit, queued)

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
        with self._mutex:
            sessions = self._sessions[thread_id]
            if not sessions or sessions[-1].id != old_session_id:
                raise StoreError("the session was already reset by another run")
            old = sessions[-1]
            now = utcnow()
            new = SessionRecord(
                id=_new_id(),
                thread_id=thread_id,
                number=old.number + 1,
                started_at=now,
                trigger=trigger,
                utilization=utilization,
                model=model,
                handoff=handoff,
                parent_id=old.id,
            )
            # All or nothing, like the SQL transaction: undo every change if any step fails.
            saved = (
                list(sessions),
                dict(self._files[thread_id]),
                self._seq[thread_id],
                list(self._pending[thread_id]),
            )
            try:
                sessions[-1] = old.model_copy(update={"ended_at": now})
                sessions.append(new)
                self._files[thread_id][handoff_path] = handoff_markdown
                rows = [self._store(thread_id, new.id, m) for m in context]
                rows += self._deliver(thread_id, new.id, None, True)
            except BaseException:
                sessions[:], files, self._seq[thread_id], self._pending[thread_id] = saved
                self._files[thread_id] = files
                self._messages.pop(new.id, None)
                raise
            return new, rows

    def undo_reset(self, thread_id: str, session_id: str, *, handoff_path: str) -> SessionRecord:
        with self._mutex:
            sessions = self._sessions[thread_id]
            if not sessions or sessions[-1].id != session_id:
                raise StoreError("only the open session's reset can be undone")
            if len(sessions) < 2:
                raise StoreError("the first session was not opened by a reset")
            if any(row.role in ("assistant", "tool") for row in self._messages[session_id]):
                raise StoreError("the model has answered since the reset")
            self._pending[thread_id] = [
                p.model_copy(update={"delivered_session_id": None})
                if p.delivered_session_id == session_id
                else p
                for p in self._pending[thread_id]
            ]
            self._messages.pop(session_id, None)
            self._edits.pop(session_id, None)
            self._files[thread_id].pop(handoff_path, None)
            sessions.pop()
            sessions[-1] = sessions[-1].model_copy(update={"ended_at": None})
            return sessions[-1]

    # fork ---------------------------------------------------------------------
    def fork_thread(
        self, source_thread_id: str, target_thread_id: str, *, before_seq: int
    ) -> list[SessionRecord]:
        with self._mutex:
            sessions = self._sessions[source_thread_id]
            cut = next(
                (
                    row
                    for s in sessions
                    for row in self._messages[s.id]
                    if row.seq == before_seq and row.role == "user"
                ),
                None,
            )
            if cut is None:
                raise StoreError(f"message {before_seq} is not a user message of the thread")
            if self._sessions[target_thread_id]:
                raise StoreError("the fork's thread already holds sessions")
            last = next(s for s in sessions if s.id == cut.session_id)
            ids = {s.id: _new_id() for s in sessions if s.number <= last.number}
            for source in sessions[: last.number]:
                new_id = ids[source.id]
                rows = self._messages[source.id]
                self._sessions[target_thread_id].append(
                    source.model_copy(
                        update={
                            "id": new_id,
                            "thread_id": target_thread_id,
                            "parent_id": ids.get(source.parent_id or ""),
                            "ended_at": None if source.id == last.id else source.ended_at,
                        }
                    )
                )
                self._messages[new_id] = [
                    row.model_copy(
                        update={
                            "id": _new_id(),
                            "thread_id": target_thread_id,
                            "session_id": new_id,
                        }
                    )
                    for row in rows
                    if row.seq < before_seq
                ]
                self._edits[new_id] = kept_edits(self._edits[source.id], rows, before_seq)
            files = self._files[source_thread_id]
            self._files[target_thread_id] = {
                name: files[path] for name, path in kept_files(files, last.number).items()
            }
            self._seq[target_thread_id] = before_seq - 1
            return list(self._sessions[target_thread_id])

    @contextmanager
    def turn_lock(self, thread_id: str) -> Iterator[None]:
        with self._mutex:
            lock = self._turn_locks[thread_id]
        with lock:
            yield
