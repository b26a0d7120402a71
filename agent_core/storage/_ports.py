"""The storage port the engine owns. chat_app implements it on SQLModel; tests use the
in-memory version in :mod:`agent_core.storage._memory_store`.

Every method is synchronous and atomic: either all of its effects are stored or none.
``seq`` numbers are per thread and increase across sessions, so a thread's timeline is
ordered by ``seq`` alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol, runtime_checkable

from agent_core.storage._records import (
    MARK_ROLES,
    ContextEdit,
    NewMessage,
    PendingRecord,
    RowMark,
    SessionRecord,
    StoredMessage,
)

__all__ = ["SessionStore"]


@runtime_checkable
class SessionStore(Protocol):
    """Threads' sessions, messages, virtual files and pending (queued) user messages."""

    def current_session(self, thread_id: str) -> SessionRecord:
        """The open session of a thread; session 1 is created on first use."""
        ...

    def sessions(self, thread_id: str) -> list[SessionRecord]:
        """All sessions of a thread, by number."""
        ...

    def append(
        self, thread_id: str, session_id: str, messages: Sequence[NewMessage]
    ) -> list[StoredMessage]:
        """Store messages at the end of the thread (in one transaction) and return them."""
        ...

    def messages(self, session_id: str) -> list[StoredMessage]:
        """Every stored row of a session (including event rows), by seq."""
        ...

    def marks(self, session_id: str, roles: Sequence[str] = MARK_ROLES) -> list[RowMark]:
        """The session's ``assistant`` and ``event`` rows (those of ``roles`` among them) by
        seq, without their content. ``roles=MARKERS``: only the markers, a few rows
        however long the session, where a check (every model call's "hand off now?") reads
        nothing else."""
        ...

    def tail_marks(self, session_id: str) -> list[RowMark]:
        """The session's last ``user`` row and every row after it, by seq, without their
        content (empty when the session holds no user row): whether that message still
        waits for a turn (:func:`agent_core.strategies._awaiting.awaits_reply`)."""
        ...

    def add_context_edit(
        self, session_id: str, edit: ContextEdit, marker: NewMessage | None = None
    ) -> StoredMessage | None:
        """Record a compaction / todo compression (and its timeline marker) atomically; the
        stored marker, when there is one."""
        ...

    def context_edits(self, session_id: str) -> list[ContextEdit]:
        """The session's context edits in the order they were made."""
        ...

    def undo_context_edit(self, session_id: str, position: int) -> ContextEdit:
        """Mark the session's edit at ``position`` (0-based, in edit order) undone and return
        it; the original rows never changed, so the model's view is as before the edit.
        Raises :class:`agent_core.errors.StoreError` when there is no such edit."""
        ...

    def search_messages(
        self, thread_id: str, query: str, *, session_id: str | None = None, limit: int = 20
    ) -> list[StoredMessage]:
        """The thread's original rows (of every session, or of ``session_id`` only, whatever
        context edits hide from the model) holding every word of ``query``, as
        :mod:`agent_core.storage._search` splits them; best match first, at most ``limit``.
        Event and system rows are not searched; a session of another thread finds nothing."""
        ...

    def read_file(self, thread_id: str, path: str) -> str | None: ...

    def write_file(self, thread_id: str, path: str, content: str) -> None: ...

    def list_files(self, thread_id: str) -> list[str]: ...

    def apply_file_changes(
        self, thread_id: str, *, written: Mapping[str, str], deleted: Sequence[str]
    ) -> None:
        """One transaction: write every file of ``written`` and delete the ``deleted`` paths
        (a missing one is no error). A sandboxed command's changes land all or not at all."""
        ...

    def enqueue_pending(
        self, thread_id: str, content: str, *, client_id: str | None = None
    ) -> PendingRecord:
        """Durably queue a user message; with a ``client_id`` already queued on the thread,
        return that message's record instead (a re-send is stored at most once)."""
        ...

    def pending(self, thread_id: str) -> list[PendingRecord]:
        """Undelivered pending messages, in send order."""
        ...

    def has_client_message(self, thread_id: str, client_id_prefix: str) -> bool:
        """Whether a message whose client id starts with ``client_id_prefix`` was ever queued
        on the thread (delivered or not)."""
        ...

    def deliver_pending(
        self,
        thread_id: str,
        session_id: str,
        *,
        limit: int | None = None,
        queued: bool = False,
    ) -> list[StoredMessage]:
        """Move undelivered pending messages into a session as user messages, exactly once.
        With ``queued`` (delivered while a turn runs: at a model call) each row's meta has
        ``queued: True``: the user typed it while the agent worked."""
        ...

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
        """One transaction: end the old session, write ``handoff_path``, open session n+1
        (parent = old) whose first rows are ``context`` followed by all pending messages
        (meta ``queued: True``: they were sent while the reset ran).

        Returns the new session and its stored first rows. Raises
        :class:`agent_core.errors.StoreError` if ``old_session_id`` is no longer the open
        session (another worker reset it first).
        """
        ...

    def undo_reset(self, thread_id: str, session_id: str, *, handoff_path: str) -> SessionRecord:
        """One transaction, the inverse of :meth:`commit_reset` while the model has not
        answered since: ``session_id`` (the thread's open session, opened by a reset) goes with
        its opening rows, the pending messages delivered into it wait in the queue again in
        their order, ``handoff_path`` is removed, and the previous session is open again; it
        is returned. Raises :class:`agent_core.errors.StoreError` if ``session_id`` is not the
        open session, has no previous one, or holds a model reply or tool result.
        """
        ...

    def fork_thread(
        self, source_thread_id: str, target_thread_id: str, *, before_seq: int
    ) -> list[SessionRecord]:
        """One transaction: copy into ``target_thread_id`` (a thread with nothing stored yet)
        ``source_thread_id`` as it was just before its user row ``before_seq``: the sessions
        up to the one holding that row (the last left open), their rows with a smaller seq
        (same seq numbers), the context edits :func:`agent_core.storage._fork.kept_edits` keeps and
        the files :func:`agent_core.storage._fork.kept_files` keeps. The source is not changed; its
        pending messages are not copied. Returns the target's sessions. Raises
        :class:`agent_core.errors.StoreError` when ``before_seq`` is not a user row of the
        source or the target already holds sessions."""
        ...

    def turn_lock(self, thread_id: str) -> AbstractContextManager[None]:
        """Serialize turns of one thread, across processes where the backend allows it."""
        ...
