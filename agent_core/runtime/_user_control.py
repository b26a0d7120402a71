"""What the user decides about resets, applied to the store: a deferral ("Not yet") and the
review of a handoff before the session it opens runs. The decisions themselves are read from
stored rows by :mod:`agent_core.strategies._reset_control`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from agent_core.errors import StoreError
from agent_core.events import MessageEvent
from agent_core.handoff._artifact import HandoffArtifact
from agent_core.storage._ports import SessionStore
from agent_core.storage._records import (
    MARKERS,
    ContextEdit,
    NewMessage,
    RowMark,
    SessionRecord,
    StoredMessage,
)
from agent_core.strategies._plan import Decision
from agent_core.strategies._reset_control import (
    deferral_pending,
    deferred,
    handoff_requested,
    review_pending,
)

__all__ = [
    "REVIEW_NOTE",
    "review_opening",
    "skip_deferred",
    "defer_next_trigger",
    "request_handoff",
    "take_handoff_request",
    "handoff_request_failed",
    "pending_review",
    "resolve_review",
    "reviewed_artifact",
]

REVIEW_NOTE = (
    "The handoff waits for your review: edit it, then confirm or discard it. "
    "Messages you send wait with it."
)
_CONTEXT_END = "</handoff-context>\n"


def review_opening() -> NewMessage:
    """The marker row a reset adds to a new session whose handoff the user reviews first."""
    return NewMessage(
        role="event", content=REVIEW_NOTE, meta={"event": "handoff_review", "status": "pending"}
    )


def skip_deferred(coordinator: Any, decision: Decision) -> bool:
    """``coordinator`` is the run's :class:`~agent_core.runtime._coordinator.SessionCoordinator`.
    When the user deferred, skip this automatic reset or compaction once (stored as a
    ``deferred`` marker, so it is skipped exactly once whichever process runs the thread)."""
    rows = coordinator.store.messages(coordinator.session.id)
    if not deferred(decision, rows):
        return False
    what = "reset" if decision.action == "reset" else "compaction"
    stored = coordinator.store.append(
        coordinator.setup.thread_id,
        coordinator.session.id,
        [
            NewMessage(
                role="event",
                content=f"Automatic {what} deferred once at {decision.utilization:.0%}",
                meta={
                    "event": "deferred",
                    "action": decision.action,
                    "utilization": round(decision.utilization, 4),
                },
            )
        ],
    )
    for row in stored:
        coordinator.emit(MessageEvent.of(row))
    return True


def defer_next_trigger(store: SessionStore, thread_id: str) -> StoredMessage | None:
    """ "Not yet": the next automatic reset or compaction of the open session is skipped once.
    Returns the stored marker, or None when a deferral already waits."""
    return _mark_once(
        store,
        thread_id,
        deferral_pending,
        NewMessage(
            role="event",
            content="Not yet: the next automatic reset or compaction waits once",
            meta={"event": "defer"},
        ),
    )


def request_handoff(store: SessionStore, thread_id: str) -> StoredMessage | None:
    """ "Hand off now" while a turn runs: the turn hands off at its next step (whichever
    process runs it reads the stored request). Returns the stored marker, or None when a
    request already waits."""
    return _mark_once(
        store,
        thread_id,
        handoff_requested,
        NewMessage(
            role="event",
            content="Hand off requested: the agent hands off at its next step",
            meta={"event": "handoff_request", "status": "pending"},
        ),
    )


def _mark_once(
    store: SessionStore,
    thread_id: str,
    waiting: Callable[[Sequence[RowMark]], bool],
    marker: NewMessage,
) -> StoredMessage | None:
    """Store ``marker`` in the open session unless one ``waiting`` says is there still waits."""
    session = store.current_session(thread_id)
    if waiting(store.marks(session.id, MARKERS)):
        return None
    return store.append(thread_id, session.id, [marker])[0]


def take_handoff_request(coordinator: Any) -> bool:
    """Whether the running turn (its :class:`~agent_core.runtime._coordinator.SessionCoordinator`)
    must hand off before its next model call. A handoff opens a new session, which holds no
    request: the request is taken by the handoff itself."""
    return handoff_requested(coordinator.store.marks(coordinator.session.id, MARKERS))


def handoff_request_failed(coordinator: Any) -> None:
    """The requested handoff failed (the reset said why): the session goes on, and the
    request is not tried again at every step."""
    stored = coordinator.store.append(
        coordinator.setup.thread_id,
        coordinator.session.id,
        [
            NewMessage(
                role="event",
                content="The requested handoff did not happen; this session goes on",
                meta={"event": "handoff_request", "status": "failed"},
            )
        ],
    )
    for row in stored:
        coordinator.emit(MessageEvent.of(row))


def _handoff_row(rows: Sequence[StoredMessage]) -> StoredMessage | None:
    return next((row for row in rows if row.role == "handoff"), None)


def pending_review(store: SessionStore, session: SessionRecord) -> HandoffArtifact | None:
    """The artifact the open session waits on, or None when nothing waits for review."""
    if session.handoff is None or not review_pending(store.marks(session.id, MARKERS)):
        return None
    return HandoffArtifact.model_validate(session.handoff)


def reviewed_artifact(
    session: SessionRecord, edits: Sequence[ContextEdit]
) -> dict[str, Any] | None:
    """The handoff a session really started from: the user's edit if there is one."""
    edit = next((e for e in reversed(edits) if e.kind == "handoff" and not e.undone), None)
    if edit is not None and edit.artifact is not None:
        return edit.artifact
    return session.handoff


def _revised_text(original: str, artifact: HandoffArtifact) -> str:
    """The handoff row's text with the artifact replaced and the rest (history note,
    instruction, todo state) kept."""
    _, found, rest = original.partition(_CONTEXT_END)
    tail = rest if found else ""
    return f"<handoff-context>\n{artifact.to_markdown()}{_CONTEXT_END}{tail}"


def resolve_review(
    store: SessionStore, thread_id: str, *, edited: HandoffArtifact | None, discard: bool = False
) -> StoredMessage:
    """Confirm the waiting handoff (``edited`` replaces it in what the model sees; the
    original stays in the session, the handoff file and the row) or discard it (the session
    starts without a handoff). Returns the marker row that settles the review."""
    session = store.current_session(thread_id)
    rows = store.messages(session.id)
    row = _handoff_row(rows)
    if row is None or not review_pending(rows) or session.handoff is None:
        raise StoreError("No handoff waits for review in this chat.")
    original = HandoffArtifact.model_validate(session.handoff)
    if discard:
        text, status = "", "discarded"
        note = "Handoff discarded: the session starts without it"
    else:
        artifact = edited or original
        changed = artifact.model_dump(mode="json") != original.model_dump(mode="json")
        text, status = _revised_text(row.content, artifact), "confirmed"
        note = "Handoff confirmed with your edits" if changed else "Handoff confirmed as written"
    edit = ContextEdit(
        kind="handoff",
        summary=note,
        seqs=[row.seq],
        placeholders={row.seq: text},
        artifact=None if discard else (edited or original).model_dump(mode="json"),
    )
    marker = NewMessage(
        role="event",
        content=note,
        meta={
            "event": "handoff_review",
            "status": status,
            "edit": len(store.context_edits(session.id)),
        },
    )
    store.add_context_edit(session.id, edit, marker)
    settled = [r for r in store.messages(session.id) if r.role == "event"]
    return settled[-1]
