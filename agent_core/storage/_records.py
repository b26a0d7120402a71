"""Plain records that cross the engine/storage boundary (the store port speaks these)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Role",
    "NewMessage",
    "StoredMessage",
    "SessionRecord",
    "PendingRecord",
    "ContextEdit",
    "RowMark",
    "MARK_ROLES",
    "MARKERS",
    "QUEUED",
    "delivered_meta",
    "utcnow",
]

Role = Literal["system", "user", "assistant", "tool", "handoff", "pinned", "event"]


#: The roles :meth:`~agent_core.storage._ports.SessionStore.marks` reads.
MARK_ROLES = ("assistant", "event")
#: ``marks(session_id, MARKERS)``: the markers only, a few rows however long the session,
#: for the checks that read nothing else (every model call's "hand off now?", a review waiting).
MARKERS = ("event",)


class RowMark(NamedTuple):
    """A stored row's role and meta without its content: what the reset controls read (the
    warn notice, "Not yet", a waiting review) after every reply of every open tab."""

    seq: int
    role: str
    meta: dict[str, Any]


#: Meta key of a user row delivered while a turn ran (at a model call, or into the session a
#: reset opened): the user typed it while the agent worked. Imported transcripts mark such
#: messages the same way (``additional_kwargs``).
QUEUED = "queued"


def delivered_meta(pending_id: str, *, queued: bool) -> dict[str, Any]:
    """The meta of the user row a pending message becomes: its queue id (the timeline keys
    the row by it, replacing the queued placeholder) and whether it was queued mid-turn."""
    return {"pending_id": pending_id, QUEUED: True} if queued else {"pending_id": pending_id}


def utcnow() -> datetime:
    return datetime.now(UTC)


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewMessage(_Record):
    """A message about to be stored in a session.

    ``role`` ``handoff`` and ``pinned`` are context messages a reset puts at the start of a
    new session; ``event`` rows are timeline markers (compaction, todo compression) that are
    never sent to a model.
    """

    role: Role
    content: str = ""
    tool_calls: list[dict[str, Any]] = Field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None
    todo_id: str | None = None
    token_count: int | None = None
    model: str | None = None
    meta: dict[str, Any] = Field(default_factory=dict)


class StoredMessage(NewMessage):
    id: str
    thread_id: str
    session_id: str
    seq: int
    created_at: datetime


class SessionRecord(_Record):
    id: str
    thread_id: str
    number: int
    started_at: datetime
    trigger: str = "start"
    utilization: float | None = None
    model: str | None = None
    handoff: dict[str, Any] | None = None
    parent_id: str | None = None
    ended_at: datetime | None = None


class PendingRecord(_Record):
    id: str
    thread_id: str
    seq: int
    content: str
    created_at: datetime
    delivered_session_id: str | None = None
    # The id the sender's browser gave the message: a re-send with it is not stored twice.
    client_id: str | None = None


class ContextEdit(_Record):
    """A non-destructive change to what the model sees of a session.

    ``kind`` ``compaction``: messages with ``seq <= upto_seq`` are replaced by ``summary``.
    ``kind`` ``todo``: the messages whose seq is in ``seqs`` are replaced by ``summary``,
    placed where the first of them stood. ``kind`` ``mask``: the tool results whose seq is a
    key of ``placeholders`` show that one-line placeholder instead of their output (the tool
    call and its result stay paired). ``kind`` ``reply``: the rows whose seq is in ``seqs``
    are an earlier reply the user regenerated; the model does not see them while another
    reply to the same message is chosen (undoing the edit chooses them again). Originals
    stay in the store.

    ``kind`` ``handoff``: the user reviewed the session's handoff; ``placeholders`` maps the
    handoff row's seq to the text the model sees instead (empty: the handoff was discarded)
    and ``artifact`` holds the edited artifact (the row and the session keep the original).

    ``undone``: the user undid it; the model's view ignores it. ``utilization`` is the share
    of the window in use when it was made (an undo holds automatic ones back until the
    context has grown past it by a margin).
    """

    kind: Literal["compaction", "todo", "mask", "handoff", "reply"]
    summary: str
    upto_seq: int | None = None
    seqs: list[int] = Field(default_factory=list)
    todo_id: str | None = None
    placeholders: dict[int, str] = Field(default_factory=dict)
    tokens_before: int = 0
    tokens_after: int = 0
    utilization: float | None = None
    undone: bool = False
    artifact: dict[str, Any] | None = None
