"""Pure decisions: keep, compact or reset, from utilization, policy and model family."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from agent_core.policy import ContextPolicy

__all__ = [
    "Action",
    "Decision",
    "effective_strategy",
    "plan",
    "confirm_compaction",
    "after_short_compaction",
]

Action = Literal["keep", "compact", "reset"]


class Decision(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    action: Action
    strategy: Literal["compact", "reset"]
    utilization: float
    reason: str


def effective_strategy(
    policy: ContextPolicy, model_default: Literal["compact", "reset"]
) -> Literal["compact", "reset"]:
    """What ``auto`` means for this model (Opus-class compact, Sonnet/Haiku-class reset)."""
    return model_default if policy.context_strategy == "auto" else policy.context_strategy


def plan(
    utilization: float, policy: ContextPolicy, *, model_default: Literal["compact", "reset"]
) -> Decision:
    """Decide what to do before a model call. Thresholds are inclusive (at 80% -> reset)."""
    strategy = effective_strategy(policy, model_default)
    if strategy == "reset":
        if utilization >= policy.reset_threshold:
            return Decision(
                action="reset",
                strategy=strategy,
                utilization=utilization,
                reason=f"utilization {utilization:.0%} >= reset threshold {policy.reset_threshold:.0%}",
            )
        return Decision(
            action="keep",
            strategy=strategy,
            utilization=utilization,
            reason="below reset threshold",
        )
    if utilization >= policy.compact_threshold:
        return Decision(
            action="compact",
            strategy=strategy,
            utilization=utilization,
            reason=f"utilization {utilization:.0%} >= compact threshold {policy.compact_threshold:.0%}",
        )
    return Decision(
        action="keep", strategy=strategy, utilization=utilization, reason="below compact threshold"
    )


def confirm_compaction(decision: Decision, projected: float, policy: ContextPolicy) -> Decision:
    """After planning a compaction: with ``auto``, reset instead when compaction cannot get
    the context below the reset threshold. An explicit ``compact`` policy never resets."""
    if decision.action != "compact":
        return decision
    if policy.context_strategy == "auto" and projected >= policy.reset_threshold:
        return Decision(
            action="reset",
            strategy="reset",
            utilization=decision.utilization,
            reason=f"compaction would leave {projected:.0%} >= reset threshold {policy.reset_threshold:.0%}",
        )
    return decision


def after_short_compaction(decision: Decision, policy: ContextPolicy) -> Decision:
    """A compaction earlier in this turn left the context at or above the compact threshold.

    Another one would summarize the same kept span and fall short again (it once ran seven
    times in one turn). With ``auto``, reset instead; an explicit ``compact`` policy keeps the
    context as it is (the caller says so once).
    """
    if decision.action != "compact":
        return decision
    if policy.context_strategy == "auto":
        return Decision(
            action="reset",
            strategy="reset",
            utilization=decision.utilization,
            reason="compaction this turn did not get below the compact threshold "
            f"{policy.compact_threshold:.0%}",
        )
    return Decision(
        action="keep",
        strategy=decision.strategy,
        utilization=decision.utilization,
        reason="compaction this turn did not get below the compact threshold "
        f"{policy.compact_threshold:.0%}; not repeated",
    )
