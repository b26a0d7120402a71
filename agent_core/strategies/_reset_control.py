"""The user's control over resets, decided from a session's stored rows (pure, no I/O).

Three things are read back from the rows, so every tab and every process sees the same:

* the *warn threshold* (:func:`warn_threshold`): the chat shows its notice while the open
  session's utilization (the meter's figure) is at or past it and no review waits;
* a *deferral* ("Not yet"): an ``event`` row ``defer`` that the next automatic reset or
  compaction consumes (an ``event`` row ``deferred``), unless the context is already at
  :data:`DEFER_LIMIT` of the window;
* a *handoff review*: an ``event`` row ``handoff_review`` with ``status`` ``pending``,
  settled by a later one with ``confirmed`` or ``discarded``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from agent_core.policy import ContextPolicy
from agent_core.storage._records import RowMark, StoredMessage
from agent_core.strategies._plan import Decision, effective_strategy

__all__ = [
    "DEFER_LIMIT",
    "WARN_MARGIN",
    "CONTEXT_META",
    "trigger_threshold",
    "warn_threshold",
    "context_samples",
    "deferral_pending",
    "deferred",
    "review_pending",
]

#: Never defer at or above this share of the window: the next call could not fit.
DEFER_LIMIT = 0.95
#: The default warn threshold is this far below the threshold that acts.
WARN_MARGIN = 0.10
#: Meta key of an assistant row: the context the model call that wrote it was sent.
CONTEXT_META = "context"
#: Rows as the store gives them: whole, or their marks (role and meta) when that is enough.
Rows = Sequence[StoredMessage] | Sequence[RowMark]


def trigger_threshold(policy: ContextPolicy, model_default: Literal["compact", "reset"]) -> float:
    """The utilization at which the engine acts by itself (reset, or compact)."""
    if effective_strategy(policy, model_default) == "reset":
        return policy.reset_threshold
    return policy.compact_threshold


def warn_threshold(policy: ContextPolicy, model_default: Literal["compact", "reset"]) -> float:
    """The assistant's warn threshold, else :data:`WARN_MARGIN` below the trigger."""
    if policy.warn_threshold is not None:
        return policy.warn_threshold
    return round(max(trigger_threshold(policy, model_default) - WARN_MARGIN, 0.01), 4)


def _event(row: StoredMessage | RowMark) -> str | None:
    return row.meta.get("event") if row.role == "event" else None


def context_samples(rows: Sequence[StoredMessage]) -> list[tuple[StoredMessage, dict[str, Any]]]:
    """The replies of ``rows`` that carry the utilization of their model call, in order."""
    return [
        (row, row.meta[CONTEXT_META])
        for row in rows
        if row.role == "assistant" and isinstance(row.meta.get(CONTEXT_META), dict)
    ]


def deferral_pending(rows: Rows) -> bool:
    """Whether the user said "Not yet" and no automatic trigger has been skipped since."""
    pending = False
    for row in rows:
        kind = _event(row)
        if kind == "defer":
            pending = True
        elif kind == "deferred":
            pending = False
    return pending


def deferred(decision: Decision, rows: Rows) -> bool:
    """Whether this reset or compaction is the one a "Not yet" skips."""
    return (
        decision.action in ("reset", "compact")
        and decision.utilization < DEFER_LIMIT
        and deferral_pending(rows)
    )


def handoff_requested(rows: Rows) -> bool:
    """Whether the user asked for a handoff during a turn ("Hand off now") that the turn has
    not made yet: it hands off at its next step, as ``/handoff`` would."""
    pending = False
    for row in rows:
        if _event(row) == "handoff_request":
            pending = row.meta.get("status") == "pending"
    return pending


def review_pending(rows: Rows) -> bool:
    """Whether the session waits for the user to confirm or discard its handoff."""
    pending = False
    for row in rows:
        if _event(row) == "handoff_review":
            pending = row.meta.get("status") == "pending"
    return pending
