"""Pure decisions: the plan for a turn, masking, the cutoff, undo, reset control."""

from agent_core.strategies._awaiting import TURN_FAILED, TURN_RESUMED, awaits_reply
from agent_core.strategies._cutoff import safe_cutoff
from agent_core.strategies._masking import mask_candidates, should_mask
from agent_core.strategies._masking import placeholder as mask_placeholder
from agent_core.strategies._plan import Decision, effective_strategy, plan
from agent_core.strategies._reset_control import (
    CONTEXT_META,
    deferral_pending,
    review_pending,
    trigger_threshold,
    warn_threshold,
)
from agent_core.strategies._undo import UNDOABLE_EVENTS, reset_undo_refusal, undo_position

__all__ = [
    "CONTEXT_META",
    "Decision",
    "TURN_FAILED",
    "TURN_RESUMED",
    "UNDOABLE_EVENTS",
    "awaits_reply",
    "deferral_pending",
    "effective_strategy",
    "mask_candidates",
    "mask_placeholder",
    "plan",
    "reset_undo_refusal",
    "review_pending",
    "safe_cutoff",
    "should_mask",
    "trigger_threshold",
    "undo_position",
    "warn_threshold",
]
