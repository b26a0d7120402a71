"""After an undo: automatic masking and compaction wait, so an undo never loops.

An undone compaction or mask leaves the context as full as it was, so the next model call
would do it again at once. Instead they wait until the context has grown by
:data:`UNDO_MARGIN` of the window past where the undone edit was made. A reset is not held
back: its threshold is the hard limit before the provider refuses the prompt.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_core.storage._records import ContextEdit, SessionRecord, StoredMessage
from agent_core.strategies._plan import Decision

__all__ = [
    "UNDO_MARGIN",
    "UNDOABLE_EVENTS",
    "undo_hold",
    "held_back",
    "undo_position",
    "reset_undo_refusal",
]

UNDO_MARGIN = 0.10


def undo_hold(edits: Sequence[ContextEdit]) -> float | None:
    """The utilization automatic masking and compaction wait for, when the session's latest
    edit was undone; None otherwise."""
    if not edits or not edits[-1].undone:
        return None
    return (edits[-1].utilization or 0.0) + UNDO_MARGIN


def held_back(decision: Decision, hold: float | None) -> Decision:
    """``decision`` with a compaction turned into keep while below ``hold``."""
    if hold is None or decision.action != "compact" or decision.utilization >= hold:
        return decision
    return decision.model_copy(
        update={
            "action": "keep",
            "reason": f"held after an undo until {hold:.0%} (now {decision.utilization:.0%})",
        }
    )


#: Marker events whose edit can be undone.
UNDOABLE_EVENTS = ("compaction", "masking")


def undo_position(
    rows: Sequence[StoredMessage], edits: Sequence[ContextEdit], marker_id: str
) -> int | str:
    """The position of the edit the marker ``marker_id`` stands for, if it can be undone,
    else why not. Only the session's latest edit, only while the model has not answered
    since (its view would otherwise change under a reply that relied on it)."""
    marker = next((row for row in rows if row.id == marker_id), None)
    meta = marker.meta if marker is not None else {}
    position = meta.get("edit")
    if (
        marker is None
        or marker.role != "event"
        or meta.get("event") not in UNDOABLE_EVENTS
        or not isinstance(position, int)
        or not 0 <= position < len(edits)
    ):
        return "Only a compaction or mask of the current session can be undone."
    if edits[position].undone:
        return "That is already undone."
    if position != len(edits) - 1:
        return "Only the latest compaction or mask can be undone."
    if any(row.role == "assistant" and row.seq > marker.seq for row in rows):
        return "The agent has answered since; it can no longer be undone."
    return position


def reset_undo_refusal(
    current: SessionRecord, rows: Sequence[StoredMessage], session_number: int
) -> str | None:
    """Why the reset that opened session ``session_number`` cannot be undone, or None.
    Only a manual ``/handoff``, only of the open session, only while the model has not
    answered in it (the previous session then goes on exactly where it stopped)."""
    if current.number != session_number or current.number < 2:
        return "Only the latest /handoff can be undone."
    if current.trigger != "manual":
        return "Only a /handoff can be undone; an automatic reset cannot."
    if any(row.role in ("assistant", "tool") for row in rows):
        return "The agent has answered since; it can no longer be undone."
    return None
