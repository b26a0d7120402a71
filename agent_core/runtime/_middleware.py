"""langchain v1 middleware: thin adapters that apply the engine's decisions in the agent loop.

Order (outermost first): :class:`ContextResetMiddleware`, then :class:`CompactionMiddleware`,
then :class:`TodoCompressionMiddleware`, then langchain's ``ToolErrorMiddleware``, which
returns whatever a tool raises to the model as an error result (:mod:`agent_core.tools._failures`).
The reset middleware also keeps the store in step with the loop (every new message is persisted
before any decision) and delivers messages queued while the agent was busy. A per-call flag
guarantees at most one reset or compaction per model call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from langchain.agents.middleware import (
    AgentMiddleware,
    ModelRequest,
    ModelResponse,
    ToolErrorMiddleware,
    hook_config,
)
from langchain_core.messages import AIMessage, RemoveMessage
from langgraph.config import get_stream_writer
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from agent_core import events
from agent_core.accounting._calibration import TokenEstimate
from agent_core.context._build import CONTEXT_SAMPLE
from agent_core.runtime import _lanes as lanes
from agent_core.runtime._coordinator import SessionCoordinator
from agent_core.runtime._user_control import (
    handoff_request_failed,
    skip_deferred,
    take_handoff_request,
)
from agent_core.strategies._pipeline import before_call, mask_due
from agent_core.strategies._plan import Decision
from agent_core.tools._failures import tool_failure

__all__ = [
    "ContextResetMiddleware",
    "CompactionMiddleware",
    "TodoCompressionMiddleware",
    "build_middleware",
]


def _replace(messages: list) -> dict[str, Any]:
    return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *messages]}


class _CallState:
    """What happened before the current model call, shared by the middleware of one run."""

    def __init__(self) -> None:
        self.acted = False
        self.estimate: TokenEstimate | None = None
        self.decision: Decision | None = None
        # Set for the rest of the turn (the stack is built per turn) once a compaction left
        # the context at or above the compact threshold; cleared by a reset.
        self.compaction_fell_short = False
        self.warned_short = False
        self.calls = 0  # model calls so far this turn


class _Base(AgentMiddleware):
    def __init__(self, coordinator: SessionCoordinator, call: _CallState):
        super().__init__()
        self.coordinator = coordinator
        self.call = call

    @staticmethod
    def _bind_writer(coordinator: SessionCoordinator) -> None:
        try:
            coordinator.route_events(get_stream_writer())
        except RuntimeError:  # called outside a graph run (unit tests)
            pass


def _before_call(
    c: SessionCoordinator, messages: list[Any], *, deliver: bool
) -> tuple[list[Any], Any, bool]:
    """A model call's store work in one trip off the loop: the last step stored, the queue
    delivered (``deliver``: not at the turn's first call, which the runner delivered just
    before), the context measured with what came in, and whether the user asked for a
    handoff. Under load each trip waits for a thread and then for the loop to come back to
    it behind every other chat's stream: one trip a call, not four."""
    if c.unsynced(messages):
        c.sync(messages)
    delivered = c.deliver_pending(mid_turn=True) if deliver else []
    return delivered, c.measure([*messages, *delivered]), take_handoff_request(c)


def _synced_and_requested(c: SessionCoordinator, messages: list[Any]) -> bool:
    c.sync(messages)
    return take_handoff_request(c)


async def _off_loop(coordinator: SessionCoordinator, work: Callable[..., Any], *args: Any) -> Any:
    """Run the coordinator's store work in a thread; its events are emitted on the loop after.

    On the event loop those calls stalled every other chat's stream and the health check (a
    fifth of the loop's time under load); the graph's stream writer is only called from here.
    """
    with coordinator.held_events():
        return await asyncio.to_thread(work, *args)


class ContextResetMiddleware(_Base):
    """Persist, deliver queued input, measure, mask old tool outputs above the mask threshold,
    and reset when the policy says so."""

    def __init__(self, coordinator: SessionCoordinator, call: _CallState, *, resets: bool = True):
        super().__init__(coordinator, call)
        self.resets = resets
        self.warned: set[str] = set()

    @hook_config(can_jump_to=["end"])
    async def abefore_model(self, state, runtime) -> dict[str, Any] | None:
        c = self.coordinator
        self._bind_writer(c)
        self.call.acted = False
        messages = list(state["messages"])
        delivered, estimate, requested = await _off_loop(
            c, partial(_before_call, deliver=self.call.calls > 0), c, messages
        )
        messages += delivered
        self.call.calls += 1
        # The last step is stored: a turn under way lets other turns' starts go first.
        await lanes.yield_to_starts()
        policy = c.setup.policy
        prepare = partial(
            before_call,
            c,
            messages,
            estimate,
            policy=policy,
            model_default=c.info.default_strategy,
            undo_hold=c.undo_hold,
            compaction_fell_short=self.call.compaction_fell_short,
        )
        # Masking writes to the store: only then does the pipeline leave the loop.
        due = mask_due(estimate.fraction, policy, c.undo_hold)
        step = await _off_loop(c, prepare) if due else prepare()
        if not step.held:
            c.undo_hold = None  # grown past the margin: back to normal
        messages, estimate, decision = step.messages, step.estimate, step.decision
        masked = messages if step.masked else None
        if step.blocked == "short_compaction" and not self.call.warned_short:
            self.call.warned_short = True
            c.emit(
                events.WarningEvent(
                    message=f"Compaction could not get this session below the compact threshold "
                    f"({policy.compact_threshold:.0%}): the recent part it keeps is too "
                    "large. Not compacting again this turn; lower keep-recent tokens or raise "
                    "the threshold.",
                    utilization=estimate.fraction,
                )
            )
        if step.blocked == "reset_head" and self.resets and c.session.id not in self.warned:
            self.warned.add(c.session.id)
            c.emit(
                events.WarningEvent(
                    message=f"This session starts at {step.head:.0%} of the context window (the handoff "
                    "and pinned files are too large for the reset threshold), so another "
                    "reset cannot help; continuing without one. Unpin large files or raise "
                    "the threshold.",
                    utilization=estimate.fraction,
                    head_fraction=round(step.head, 4),
                )
            )
        if decision.action != "keep" and await _off_loop(c, skip_deferred, c, decision):
            decision = decision.model_copy(update={"action": "keep", "reason": "deferred once"})
        self.call.estimate, self.call.decision = estimate, decision
        if requested or (decision.action == "reset" and self.resets):
            trigger = "manual" if requested else "auto"
            context = await c.reset(messages, trigger=trigger, utilization=estimate.fraction)
            if context is None and requested:
                await _off_loop(c, handoff_request_failed, c)
            if context is not None:
                self.call.acted = True
                self.call.compaction_fell_short = False
                c.measure(context)
                if c.setup.review_handoffs:  # the new session waits for the user's review
                    return {**_replace(context), "jump_to": "end"}
                return _replace(context)
        if masked is not None:
            return _replace(masked)
        return {"messages": delivered} if delivered else None

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse:
        response = await handler(request)
        reply = next((m for m in response.result if isinstance(m, AIMessage)), None)
        usage = reply.usage_metadata if reply is not None else None
        reported = int(usage["input_tokens"]) if usage and usage.get("input_tokens") else None
        if reported:
            self.coordinator.estimator.observe(
                list(request.messages),
                reported,
                system=self.coordinator.setup.system_prompt or None,
                tools=list(self.coordinator.setup.tools) or None,
            )
        sent = self.coordinator.last_estimate
        if reply is not None and sent is not None:
            # Stored with the reply: the thread's utilization at every model call (the chart).
            tokens = reported or sent.tokens
            reply.response_metadata[CONTEXT_SAMPLE] = {
                "tokens": tokens,
                "window": sent.window,
                "fraction": round(tokens / sent.window, 4) if sent.window else 0.0,
                "basis": "exact" if reported else sent.basis,
            }
        return response

    async def aafter_agent(self, state, runtime) -> dict[str, Any] | None:
        c = self.coordinator
        messages = list(state["messages"])
        # "Hand off now" that came after the turn's last model call: this turn has no next
        # step, so it hands off as it ends (else the request waited for the next message).
        if await _off_loop(c, _synced_and_requested, c, messages):
            estimate = c.measure(messages)
            if await c.reset(messages, trigger="manual", utilization=estimate.fraction) is None:
                await _off_loop(c, handoff_request_failed, c)
        return None


class CompactionMiddleware(_Base):
    """Summarize the oldest part in place when the decision is ``compact``."""

    async def abefore_model(self, state, runtime) -> dict[str, Any] | None:
        decision = self.call.decision
        estimate = self.call.estimate
        if self.call.acted or decision is None or estimate is None or decision.action != "compact":
            return None
        context = await self.coordinator.compact(list(state["messages"]), estimate)
        if context is None:
            if self.coordinator.compaction_discarded:
                # Another summary of the same span would be discarded too: not again this
                # turn (with auto the next step resets). Its marker already said why.
                self.call.compaction_fell_short = self.call.warned_short = True
            return None
        self.call.acted = True
        after = self.coordinator.measure(context)
        if after.fraction >= self.coordinator.setup.policy.compact_threshold:
            self.call.compaction_fell_short = True
        return _replace(context)


class TodoCompressionMiddleware(_Base):
    """Replace a finished todo's span by its summary (only if smaller)."""

    async def abefore_model(self, state, runtime) -> dict[str, Any] | None:
        if self.call.acted or not self.coordinator.todos.closed:
            return None
        written, rows = await self.coordinator.write_todo_summaries()
        context = await _off_loop(
            self.coordinator, self.coordinator.compress_finished_todos, written, rows
        )
        if context is None:
            return None
        self.coordinator.measure(context)
        return _replace(context)


def build_middleware(coordinator: SessionCoordinator) -> list[AgentMiddleware]:
    """The stack for the assistant's effective strategy (compact-only / reset-only / auto)."""
    call = _CallState()
    strategy = coordinator.setup.policy.context_strategy
    effective = coordinator.info.default_strategy if strategy == "auto" else strategy
    stack: list[AgentMiddleware] = [
        ContextResetMiddleware(coordinator, call, resets=strategy != "compact")
    ]
    if strategy == "compact" or (strategy == "auto" and effective == "compact"):
        stack.append(CompactionMiddleware(coordinator, call))
    stack.append(TodoCompressionMiddleware(coordinator, call))
    stack.append(ToolErrorMiddleware(tool_failure))
    return stack
