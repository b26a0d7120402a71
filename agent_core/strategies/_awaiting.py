"""Whether a session's last user message still waits for a turn (pure, no I/O).

A user message reaches a session in several ways: delivered at the start of a turn or at a
model call, handed to a new session by a reset (``commit_reset`` delivers the queue too), or
carried over verbatim. Most of them are answered by the run that delivered them; some are
not: a ``/handoff`` or "Compact now" running when the message arrived, a review confirmed, a
process that died between the delivery and the model's reply. "A turn is due" is therefore
read from the stored rows, not from who delivered what:

* the session's last user row is followed by no reply (an ``assistant`` or ``tool`` row), and
* no turn ended on it without one: a turn that failed (a provider error, a second overflow)
  or was stopped before the model said anything stores a marker row (:data:`TURN_FAILED`,
  :data:`TURN_STOPPED`), and that counts as its turn having run;
* it was not tried again after a crash already (:data:`TURN_RESUMED`, stored by the start-up
  that answers a turn a crash cut once more): a message that kills the process is tried
  twice at most, never again by opening its chat.

The markers are what keep a failing provider from being asked again and again: a message
whose turn failed is not due any more; the user asks again by sending (or Regenerate once a
reply exists). Exactly once comes from the turn lock: the check is made again under it.

A cut turn's message is answered before any newer one (:func:`answers_first`): a turn that
opens on a session ending in the :data:`TURN_RESUMED` note answers that message first, and the
queue waits for the turn's next model call or the next turn. Delivered at once, a message the
user typed after seeing the turn end overtook the cut one, and one reply answered both. (A
message left unanswered any other way, say by a turn stopped before it stored anything, goes
to the model with whatever the user wrote since.)
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_core.storage._records import RowMark

__all__ = [
    "TURN_FAILED",
    "TURN_STOPPED",
    "TURN_RESUMED",
    "TURN_ENDS",
    "REPLY_ROLES",
    "awaits_reply",
    "answers_first",
]

#: ``meta["event"]`` of the marker a turn that failed before (or after) replying stores.
TURN_FAILED = "turn_failed"
#: ``meta["event"]`` of the marker a turn stopped before the model's first words stores.
TURN_STOPPED = "turn_stopped"
#: ``meta["event"]`` of the note a start-up stores before it answers a cut turn once more.
TURN_RESUMED = "turn_resumed"
TURN_ENDS = (TURN_FAILED, TURN_STOPPED, TURN_RESUMED)
#: Rows that are the model's answer to what came before them.
REPLY_ROLES = ("assistant", "tool")


def awaits_reply(tail: Sequence[RowMark]) -> bool:
    """``tail`` is a session's last user row and every row after it, by seq (what
    :meth:`~agent_core.storage._ports.SessionStore.tail_marks` returns). True when a turn is due
    for that message: no reply follows it and no turn ended on it."""
    if not tail or tail[0].role != "user":
        return False
    for mark in tail[1:]:
        if mark.role in REPLY_ROLES:
            return False
        if mark.role == "event" and mark.meta.get("event") in TURN_ENDS:
            return False
    return True


def answers_first(tail: Sequence[RowMark]) -> bool:
    """``tail``: a session's last rows by seq (its last row is enough), read as a turn opens.
    True when that turn answers the session's last user message before any queued one: a
    crash cut its turn, and it is answered once more (the session ends in the
    :data:`TURN_RESUMED` note)."""
    return bool(tail) and tail[-1].role == "event" and tail[-1].meta.get("event") == TURN_RESUMED
