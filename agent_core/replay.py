"""Replay an imported transcript through the engine's decisions, with no network.

For each message the context is measured (calibrated by the transcript's own provider usage
where it has any), ``plan()`` decides, and resets and compactions are applied to the replayed
context. Handoffs are facts-only, the offline simulator's, or a real model's
(``--handoff provider:model``, when its key is set); each is the previous one updated by the
session (chained), and uses only the evidence up to the cut: a SWE-agent submission diff
counts only once the replay has reached the end. One JSON line per reset / compaction, then a
summary line.

As in the app, a user message that arrives when the context is full starts the new session
after the handoff; it is not lost. Importer events (aider's applied edits and commits) count
for the handoff of the session whose messages they follow.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage

from agent_core.calibration import ContextEstimator
from agent_core.compaction import facts_summary
from agent_core.handoff.artifact import HandoffArtifact, handoff_context_message
from agent_core.handoff.facts import extract_facts
from agent_core.handoff.generation import generate_handoff
from agent_core.handoff.inventory import take_inventory
from agent_core.models import model_info
from agent_core.policy import make_policy
from agent_core.providers.registry import resolve_model
from agent_core.providers.simulator import SimulatorChatModel
from agent_core.strategies.cutoff import safe_cutoff
from agent_core.strategies.plan import confirm_compaction, plan
from agent_core.transcripts import Transcript, load_transcript

__all__ = ["ReplayStep", "replay", "replay_transcript"]


class ReplayStep(NamedTuple):
    """The replayed context after one transcript message, before any reset it triggers."""

    message_index: int
    total: int
    tokens: int
    window: int
    session: int


def handoff_model_for(spec: str) -> BaseChatModel | None:
    """``facts`` (no model), ``simulator``, or a ``provider:model`` spec (a real model when its
    key or URL is configured, else the simulator, as in the app)."""
    if spec == "facts":
        return None
    if spec == "simulator":
        return SimulatorChatModel()
    return resolve_model(spec).model


def _handoff(context: list[BaseMessage], *, session: int, utilization: float, model: str,
             handoff_model: BaseChatModel | None, metadata: dict[str, Any],
             previous: HandoffArtifact | None, budget_tokens: int, window: int
             ) -> tuple[HandoffArtifact, str]:
    facts = extract_facts(context, metadata=metadata)
    result = asyncio.run(generate_handoff(
        handoff_model, context, facts=facts, session_number=session, trigger="auto",
        utilization=min(utilization, 1.0), model_name=model, previous=previous,
        budget_tokens=budget_tokens, window_tokens=window,
        inventory=take_inventory(context, metadata),
        # As the app stores it: message i of the replayed session is its row i + 1.
        locate=lambda index: (session, index + 1)))
    return result.artifact, handoff_context_message(result.artifact)


# Metadata that describes the finished run (SWE-agent's submitted diff): evidence only at the end.
_FINAL_ONLY = ("submission", "info")


def _session_metadata(transcript: Transcript, origin: list[int | None]) -> dict[str, Any]:
    """The transcript's metadata for a replayed context: importer events (which carry the
    number of transcript messages before them) kept only if the message they follow is in
    the context, and renumbered to context positions; the run's final submission only when
    the context reaches the transcript's last message."""
    position = {index: i for i, index in enumerate(origin) if index is not None}
    events = []
    for event in transcript.metadata.get("events") or []:
        after = event.get("message_index", 0) - 1
        if after in position:
            events.append({**event, "message_index": position[after] + 1})
    metadata = {**transcript.metadata, "events": events, "format": transcript.format}
    if len(transcript.messages) - 1 not in position:
        metadata = {k: v for k, v in metadata.items() if k not in _FINAL_ONLY}
    return metadata


def replay(path: str, *, fmt: str = "auto", model: str, window: int | None = None,
           strategy: str = "auto", threshold: float | None = None,
           handoff_model: str = "facts", budget_tokens: int = 1500,
           on_step: Callable[[ReplayStep], None] | None = None) -> Iterator[dict[str, Any]]:
    """Yield one event per reset / compaction, then a summary (see the module docstring).

    ``on_step`` is called after every message with the context's size (progress bars, charts).
    """
    return replay_transcript(load_transcript(path, format=fmt), model=model, window=window,
                             strategy=strategy, threshold=threshold, handoff_model=handoff_model,
                             budget_tokens=budget_tokens, on_step=on_step)


def replay_transcript(transcript: Transcript, *, model: str, window: int | None = None,
                      strategy: str = "auto", threshold: float | None = None,
                      compact_threshold: float | None = None, handoff_model: str = "facts",
                      budget_tokens: int = 1500,
                      on_step: Callable[[ReplayStep], None] | None = None
                      ) -> Iterator[dict[str, Any]]:
    """:func:`replay` over a transcript already loaded. ``threshold`` is the reset threshold;
    ``compact_threshold`` defaults to 5 points below it (at most 0.5). ``on_step`` may raise to
    stop the replay (a cancelled replay in the app)."""
    writer = handoff_model_for(handoff_model)
    previous: HandoffArtifact | None = None
    # Replay models compactions and resets; masking is measured by bench.masking. Off, a low
    # threshold here never collides with the mask threshold's default.
    policy_fields: dict[str, Any] = {"context_strategy": strategy, "window_override": window,
                                     "mask_threshold": None}
    if threshold is not None:
        policy_fields["reset_threshold"] = threshold
        policy_fields["compact_threshold"] = min(0.5, threshold - 0.05)
    if compact_threshold is not None:
        policy_fields["compact_threshold"] = compact_threshold
    policy = make_policy(**policy_fields)
    info = model_info(model, window_override=window)
    estimator = ContextEstimator(model, window_override=window)
    usage = {u.message_index: u.input_tokens for u in transcript.usage}
    context: list[BaseMessage] = []
    origin: list[int | None] = []  # the transcript index of each context message
    pristine = True  # the replayed context still equals the transcript's own prompt
    session, resets, compactions, started = 1, 0, 0, time.perf_counter()
    for index, message in enumerate(transcript.messages):
        if pristine and index in usage and context:
            estimator.observe(context, usage[index])
        context.append(message)
        origin.append(index)
        estimate = estimator.estimate(context)
        if on_step is not None:
            on_step(ReplayStep(index, len(transcript.messages), estimate.tokens,
                               estimate.window, session))
        decision = plan(estimate.fraction, policy, model_default=info.default_strategy)
        if decision.action == "compact":
            cut = safe_cutoff(context, policy.keep_recent_tokens, estimator.counter.count_message)
            kept = estimator.counter.count(context[cut:])
            projected = (kept + 800) / estimate.window
            decision = confirm_compaction(decision, projected, policy)
            if decision.action == "compact" and cut >= 2:
                summary = facts_summary(context[:cut])
                context = [HumanMessage(f"<summary>\n{summary}\n</summary>"), *context[cut:]]
                origin = [None, *origin[cut:]]
                compactions, pristine = compactions + 1, False
                yield {"event": "compaction", "message_index": index,
                       "utilization": round(estimate.fraction, 4), "basis": estimate.basis,
                       "messages_summarized": cut, "tokens_after": estimator.estimate(context).tokens}
                continue
        if decision.action == "reset" and len(context) >= 2:
            # A user message that finds the context full is the new session's first input.
            incoming = [message] if isinstance(message, HumanMessage) and len(context) > 2 else []
            old = context[: len(context) - len(incoming)]
            metadata = _session_metadata(transcript, origin[: len(old)])
            previous, opening = _handoff(old, session=session, utilization=estimate.fraction,
                                         model=model, handoff_model=writer, metadata=metadata,
                                         previous=previous, budget_tokens=budget_tokens,
                                         window=info.context_window)
            yield {"event": "reset", "message_index": index, "utilization": round(estimate.fraction, 4),
                   "basis": estimate.basis, "session_number": session + 1,
                   "handoff": previous.model_dump(mode="json")}
            context = [HumanMessage(opening), *incoming]
            origin = [None, *([index] if incoming else [])]
            session, resets, pristine = session + 1, resets + 1, False
    final = estimator.estimate(context) if context else None
    yield {"event": "summary", "format": transcript.format, "messages": len(transcript.messages),
           "usage_points": len(usage), "model": model, "window": info.context_window,
           "strategy": strategy, "resets": resets, "compactions": compactions, "sessions": session,
           "final_utilization": round(final.fraction, 4) if final else 0.0,
           "seconds": round(time.perf_counter() - started, 3)}

