"""Applies context decisions to one thread's session: persist, deliver, measure, mask,
reset, compact, compress todos. The middleware calls it; it owns no decision logic of its own
(that is :mod:`agent_core.strategies`)."""

from __future__ import annotations

from agent_core.runtime._edits import COMPACTION_DISCARDED, Edits
from agent_core.runtime._pinned import pinned_context
from agent_core.runtime._reset import CARRIED_OVER, Resets, unanswered_requests

__all__ = [
    "CARRIED_OVER",
    "COMPACTION_DISCARDED",
    "SessionCoordinator",
    "pinned_context",
    "unanswered_requests",
]


class SessionCoordinator(Resets, Edits):
    """The live state of one run (:class:`~agent_core.runtime._open_session.OpenSession`),
    with its resets (:mod:`._reset`) and context edits (:mod:`._edits`)."""
