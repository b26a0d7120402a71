"""What happens to the context before a model call, in the order the app applies it.

One function, :func:`before_call`, for the live middleware and for a replay, so a replay
makes the decisions a chat would make over the same messages:

1. mask old tool outputs once utilization is at or above the mask threshold (unless an
   undo holds automatic edits back), then measure again: what follows is judged on what
   is left;
2. :func:`~agent_core.strategies._plan.plan` decides keep / compact / reset, a compaction
   held back after an undo is kept, and one that cannot get below the reset threshold
   becomes a reset (``auto``);
3. the anti-loop guards: a compaction that already fell short this turn is not repeated
   (``auto`` resets instead), and a reset waits until the model has answered twice in the
   session and is refused when the session's opening alone reaches the reset threshold.

The caller holds the context and acts: :class:`ContextOps` is what the pipeline asks of it
(the app's :class:`~agent_core.runtime._coordinator.SessionCoordinator` over the store, a replay over
a list of messages). User controls that live in the store (a "Not yet" deferral) are applied
by the live caller to the decision returned here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from langchain_core.messages import AIMessage, BaseMessage

from agent_core.accounting._calibration import TokenEstimate
from agent_core.context._build import context_kind
from agent_core.policy import ContextPolicy
from agent_core.strategies._cutoff import safe_cutoff
from agent_core.strategies._masking import should_mask
from agent_core.strategies._plan import Decision, after_short_compaction, confirm_compaction, plan
from agent_core.strategies._undo import held_back

__all__ = [
    "ContextOps",
    "CallPlan",
    "Blocked",
    "before_call",
    "mask_due",
    "conversation_started",
    "opening_messages",
    "projected_after_compaction",
]

#: Why a compaction or reset the thresholds asked for was not made.
Blocked = Literal["short_compaction", "reset_head"]


class ContextOps(Protocol):
    """What :func:`before_call` needs from whoever holds the context."""

    def measure(self, messages: Sequence[BaseMessage]) -> TokenEstimate:
        """The context's size as the next model call would be sent it."""
        ...

    def mask(
        self, messages: Sequence[BaseMessage], utilization: float | None = None
    ) -> list[BaseMessage] | None:
        """Mask the old tool outputs; the new context, or None when there was nothing."""
        ...

    def projected_after_compaction(
        self, messages: Sequence[BaseMessage], estimate: TokenEstimate
    ) -> float:
        """The utilization a compaction would leave."""
        ...

    def head_fraction(self, messages: Sequence[BaseMessage]) -> float:
        """The share of the window the session's opening (handoff, pinned files, system
        prompt, tools) takes: what any new session starts with at least."""
        ...


@dataclass(frozen=True)
class CallPlan:
    """The outcome of :func:`before_call`: the context to send (masked if it was), its
    measure, and what to do with it."""

    messages: list[BaseMessage]
    estimate: TokenEstimate
    decision: Decision
    masked: bool = False
    held: bool = False  # an undo holds automatic masking and compaction back
    blocked: Blocked | None = None
    head: float = 0.0  # the opening's share of the window, when a reset was considered


def conversation_started(messages: Sequence[BaseMessage]) -> bool:
    """Whether the model has answered at least twice in this session: a session gets room
    for progress before it can be reset again (guards against reset loops)."""
    return sum(1 for m in messages if isinstance(m, AIMessage)) >= 2


def opening_messages(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The session's opening context: its handoff and pinned files."""
    return [m for m in messages if context_kind(m) in ("handoff", "pinned")]


def projected_after_compaction(
    messages: Sequence[BaseMessage],
    tokens: int,
    window: int,
    *,
    keep_recent_tokens: int,
    summary_tokens: int,
    count: Callable[[BaseMessage], int],
) -> float:
    """The utilization after compacting ``messages`` (now ``tokens`` of ``window``): the
    summarized span (never the opening) leaves, a summary of ``summary_tokens`` comes in."""
    cut = safe_cutoff(messages, keep_recent_tokens, count)
    removed = sum(count(m) for m in messages[:cut] if context_kind(m) not in ("handoff", "pinned"))
    return (tokens - removed + summary_tokens) / window


def mask_due(utilization: float, policy: ContextPolicy, undo_hold: float | None) -> bool:
    """Whether :func:`before_call` masks at ``utilization`` (its one step that writes)."""
    return not _held(utilization, undo_hold) and should_mask(utilization, policy)


def _held(utilization: float, undo_hold: float | None) -> bool:
    return undo_hold is not None and utilization < undo_hold


def _keep(decision: Decision, reason: str) -> Decision:
    return decision.model_copy(update={"action": "keep", "reason": reason})


def before_call(
    ops: ContextOps,
    messages: Sequence[BaseMessage],
    estimate: TokenEstimate,
    *,
    policy: ContextPolicy,
    model_default: Literal["compact", "reset"],
    undo_hold: float | None = None,
    compaction_fell_short: bool = False,
) -> CallPlan:
    """Mask, measure again, decide and guard (see the module docstring). ``estimate`` is
    ``messages`` measured; ``undo_hold`` is the utilization automatic masking and
    compaction wait for after an undo; ``compaction_fell_short`` says a compaction earlier
    in this turn left the context at or above the compact threshold."""
    context = list(messages)
    held = _held(estimate.fraction, undo_hold)
    masked = False
    if mask_due(estimate.fraction, policy, undo_hold):
        after = ops.mask(context, estimate.fraction)
        if after is not None:
            context, estimate, masked = after, ops.measure(after), True
    decision = plan(estimate.fraction, policy, model_default=model_default)
    decision = held_back(decision, undo_hold if held else None)
    if decision.action == "compact":
        decision = confirm_compaction(
            decision, ops.projected_after_compaction(context, estimate), policy
        )
    blocked: Blocked | None = None
    if decision.action == "compact" and compaction_fell_short:
        decision = after_short_compaction(decision, policy)
        if decision.action == "keep":
            blocked = "short_compaction"
    head = 0.0
    if decision.action == "reset":
        head = ops.head_fraction(context)
        if not conversation_started(context):
            decision, blocked = (
                _keep(decision, "the model has not answered twice in this session yet"),
                "reset_head",
            )
        elif head >= policy.reset_threshold:
            decision, blocked = (
                _keep(decision, f"the session's opening alone takes {head:.0%} of the window"),
                "reset_head",
            )
    return CallPlan(
        messages=context,
        estimate=estimate,
        decision=decision,
        masked=masked,
        held=held,
        blocked=blocked,
        head=head,
    )
