"""Replay an imported transcript through the pipeline a chat runs, with no network.

Before each model call of the transcript (each assistant message) the context is put through
:func:`~agent_core.strategies._pipeline.before_call`, the function the app's middleware calls:
old tool outputs are masked at the mask threshold, the context is measured again, then it is
kept, compacted or reset, with the same anti-loop guards. The context is measured as the app
measures it (the assistant's system prompt and tools when given) and calibrated by the
transcript's own provider usage while it is still the transcript's own prompt. Handoffs are
facts-only, the offline simulator's, or a real model's (``--handoff provider:model``, when its
key is set); each is the previous one updated by the session (chained), and uses only the
evidence up to the cut: a SWE-agent submission diff counts only once the replay has reached
the end. Compaction summaries are the model-free facts summary. One typed event
(:data:`~agent_core.replay._events.ReplayEvent`) per mask / compaction / reset, then the summary.

As in the app, the user's messages the model had not answered when the context filled start
the new session after the handoff; they are not lost. Importer events (aider's applied edits
and commits) count for the handoff of the session whose messages they follow. Messages the
original tool never sent to its model (aider's ``/commands``) are not in the context.
"""

from __future__ import annotations

import asyncio
import time
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal, NamedTuple

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from agent_core.accounting._calibration import ContextEstimator
from agent_core.accounting._models import model_info
from agent_core.context._build import context_kind
from agent_core.errors import ConfigurationError
from agent_core.handoff._artifact import HandoffArtifact, handoff_context_message
from agent_core.handoff._facts import extract_facts
from agent_core.handoff._generation import generate_handoff
from agent_core.handoff._inventory import take_inventory
from agent_core.policy import ContextPolicy, make_policy
from agent_core.providers._registry import resolve_model
from agent_core.providers._settings import ProviderSettings
from agent_core.providers._simulator import SimulatorChatModel
from agent_core.replay._context import ReplayContext
from agent_core.replay._events import (
    ReplayCompaction,
    ReplayEvent,
    ReplayMask,
    ReplayReset,
    ReplaySummary,
)
from agent_core.strategies._pipeline import before_call
from agent_core.transcripts import Transcript, load_transcript
from agent_core.transcripts._transcript import NOT_SENT

__all__ = [
    "APP_MASK_THRESHOLD",
    "ReplayStep",
    "oversized_messages",
    "replay",
    "replay_policy",
    "replay_transcript",
]

#: The mask threshold of an assistant nobody changed on /admin: a replay's default.
APP_MASK_THRESHOLD: float = ContextPolicy().mask_threshold or 0.35


class ReplayStep(NamedTuple):
    """The replayed context after one transcript message, before any reset it triggers."""

    message_index: int
    total: int
    tokens: int
    window: int
    session: int


def handoff_model_for(spec: str, providers: ProviderSettings | None = None) -> BaseChatModel | None:
    """``facts`` (no model), ``simulator``, or a ``provider:model`` spec (a real model when its
    key or URL is in ``providers``, else the simulator, as in the app)."""
    if spec == "facts":
        return None
    if spec == "simulator":
        return SimulatorChatModel()
    return resolve_model(spec, settings=providers).model


def session_handoff(
    replayed: ReplayContext,
    *,
    utilization: float,
    model: str,
    handoff_model: BaseChatModel | None,
    metadata: dict[str, Any],
    previous: HandoffArtifact | None,
    budget_tokens: int,
    window: int,
    since: int = 0,
) -> tuple[HandoffArtifact, str]:
    """The handoff that ends ``replayed``'s open session: asked with its context, its facts
    and the check's inventory read from the session's original messages (from its
    ``since``-th: where a separate chat began), each located at its stored row (as the app
    stores it), as the coordinator does."""
    originals = replayed.originals[since:]
    facts = extract_facts(originals, metadata=metadata)
    result = asyncio.run(
        generate_handoff(
            handoff_model,
            replayed.messages,
            facts=facts,
            session_number=replayed.session,
            trigger="auto",
            utilization=min(utilization, 1.0),
            model_name=model,
            previous=previous,
            budget_tokens=budget_tokens,
            window_tokens=window,
            inventory=take_inventory(originals, metadata),
            # As the coordinator: places are named only where the history tools can open them.
            locate=(
                None
                if not replayed.history_tools
                else (lambda i: replayed.locate(i + since))
                if since
                else replayed.locate
            ),
        )
    )
    return result.artifact, handoff_context_message(result.artifact)


def _chat_start(
    transcript: Transcript, indexes: list[int], messages: Sequence[BaseMessage], opened: int
) -> int | None:
    """Where among the open session's ``messages`` (their transcript ``indexes``; the
    session opened at transcript message ``opened``) the last separate chat of a log of many
    began (aider's ``# aider chat started at``) that holds a request of the user's; None when
    none did. Such a chat starts from nothing, as aider starts it, so its handoff has its own
    goal, not the first chat's."""
    if transcript.format != "aider" or not indexes:
        return None
    asked = [_a_request(m) for m in messages]
    starts = sorted(
        (s["message_index"] for s in transcript.metadata.get("sessions") or [] if s),
        reverse=True,
    )
    for start in starts:
        if not opened <= start <= indexes[-1]:
            continue
        # The chat's own first messages may be commands the model was never sent.
        position = bisect_left(indexes, start)
        if any(asked[position:]):
            return position
    return None


def _a_request(message: BaseMessage) -> bool:
    kwargs = message.additional_kwargs
    return isinstance(message, HumanMessage) and not any(
        kwargs.get(k) for k in ("not_user", NOT_SENT, "aider_reflection")
    )


# Metadata that describes the finished run (SWE-agent's submitted diff): evidence only at the end.
_FINAL_ONLY = ("submission", "info")


def _session_metadata(
    transcript: Transcript, indexes: list[int], first: int, last: int
) -> dict[str, Any]:
    """The transcript's metadata for a session that ran from message ``first`` to message
    ``last`` and whose own messages are the transcript's ``indexes``: importer events (which
    carry the number of transcript messages before them) kept only if they follow a message
    of that span, and renumbered to the session's messages; the run's final submission only
    when the session reaches the transcript's last message."""
    events = []
    for event in transcript.metadata.get("events") or []:
        after = event.get("message_index", 0) - 1
        if first <= after <= last:
            events.append({**event, "message_index": bisect_right(indexes, after)})
    metadata = {**transcript.metadata, "events": events, "format": transcript.format}
    if last < len(transcript.messages) - 1:
        metadata = {k: v for k, v in metadata.items() if k not in _FINAL_ONLY}
    return metadata


def _when(transcript: Transcript, index: int) -> str | None:
    """When the transcript's message ``index`` was written, where the file says."""
    stamp = transcript.messages[index].additional_kwargs.get("timestamp")
    return str(stamp) if stamp else None


def oversized_messages(
    transcript: Transcript, context: ReplayContext, policy: ContextPolicy, window: int
) -> list[int]:
    """The messages alone past the reset point of ``window``: each forces a reset that the
    next session cannot get under (a replay stops once such resets come in a row)."""
    limit = int(window * policy.reset_threshold)
    return [
        i
        for i, m in enumerate(transcript.messages)
        if not m.additional_kwargs.get(NOT_SENT) and context.count(m) > limit
    ]


#: Resets in a row that open a session which resets again at its first model call: past
#: this, the window is too small for the session and the replay stops and says so.
FUTILE_RESETS = 3


class _FutileResets:
    """Resets that bought nothing: the session a reset opened was already over the reset
    threshold at its first model call (its handoff and the messages that must follow it do
    not fit the window)."""

    def __init__(self, window: int, threshold: float) -> None:
        self.window, self.threshold = window, threshold
        self.opened = False  # a reset opened the session and it has made no call yet
        self.row = 0
        self.largest = 0

    def reset(self) -> None:
        self.opened = True

    def call(self, tokens: int, fraction: float) -> str | None:
        """A model call of the replay; the words to stop with once too many resets in a row
        opened a session already over its threshold."""
        if not self.opened:
            return None
        self.opened = False
        futile = fraction >= self.threshold
        self.row = self.row + 1 if futile else 0
        self.largest = max(self.largest, tokens) if futile else 0
        if self.row < FUTILE_RESETS:
            return None
        suggested = -(-self.largest * 5 // 2 // 1000) * 1000  # at 40% of the window
        # Short enough for the app to show whole (it shows an error's first 300 characters).
        return (
            f"{self.row} resets in a row opened a session already over its threshold (up to "
            f"{self.largest:,} tokens of a {self.window:,}-token window): resetting at every "
            f"message would say nothing. Replay with a window of at least {suggested:,} tokens."
        )


def replay_policy(
    *,
    strategy: str = "auto",
    window: int | None = None,
    threshold: float | None = None,
    compact_threshold: float | None = None,
    mask_threshold: float | None | Literal["app"] = "app",
    keep_recent_tokens: int | None = None,
) -> ContextPolicy:
    """The policy a replay runs with when no assistant gives one: the app's defaults, with
    what is given. ``threshold`` is the reset threshold; the compact threshold defaults to 5
    points below it (at most 0.5), the mask threshold to the app's
    (:data:`APP_MASK_THRESHOLD`), lowered to 5 points below the compact threshold when
    that is lower; ``mask_threshold=None`` turns masking off. Raises
    :class:`~agent_core.errors.ConfigurationError` for thresholds out of order."""
    fields: dict[str, Any] = {"context_strategy": strategy, "window_override": window}
    if threshold is not None:
        fields["reset_threshold"] = threshold
        fields["compact_threshold"] = min(0.5, round(threshold - 0.05, 4))
    if compact_threshold is not None:
        fields["compact_threshold"] = compact_threshold
    if mask_threshold == "app":
        below = round(fields.get("compact_threshold", ContextPolicy().compact_threshold) - 0.05, 4)
        mask_threshold = min(APP_MASK_THRESHOLD, below) if below > 0 else None
    fields["mask_threshold"] = mask_threshold
    if keep_recent_tokens is not None:
        fields["keep_recent_tokens"] = keep_recent_tokens
    return make_policy(**fields)


def replay(
    path: str,
    *,
    fmt: str = "auto",
    model: str,
    window: int | None = None,
    strategy: str = "auto",
    threshold: float | None = None,
    mask_threshold: float | None | Literal["app"] = "app",
    handoff_model: str = "facts",
    providers: ProviderSettings | None = None,
    budget_tokens: int = 1500,
    on_step: Callable[[ReplayStep], None] | None = None,
) -> Iterator[ReplayEvent]:
    """Yield one event per mask / compaction / reset, then a :class:`ReplaySummary` (see
    the module docstring). The policy is :func:`replay_policy`'s.

    ``on_step`` is called after every message with the context's size (progress bars, charts).
    """
    policy = replay_policy(
        strategy=strategy, window=window, threshold=threshold, mask_threshold=mask_threshold
    )
    return replay_transcript(
        load_transcript(path, format=fmt),
        model=model,
        policy=policy,
        handoff_model=handoff_model,
        providers=providers,
        budget_tokens=budget_tokens,
        on_step=on_step,
    )


def replay_transcript(
    transcript: Transcript,
    *,
    model: str,
    policy: ContextPolicy | None = None,
    window: int | None = None,
    strategy: str = "auto",
    threshold: float | None = None,
    compact_threshold: float | None = None,
    model_default: Literal["compact", "reset"] | None = None,
    system_prompt: str | None = None,
    tools: Sequence[Any] = (),
    history_tools: bool = False,
    summary_tokens: int = 800,
    handoff_model: str = "facts",
    providers: ProviderSettings | None = None,
    budget_tokens: int = 1500,
    on_step: Callable[[ReplayStep], None] | None = None,
) -> Iterator[ReplayEvent]:
    """:func:`replay` over a transcript already loaded.

    ``policy`` is the assistant's (its thresholds, keep-recent tokens and window); without
    one, :func:`replay_policy` builds it from ``window``, ``strategy``, ``threshold`` and
    ``compact_threshold``. Tokens are counted for ``model``, the transcript's; what ``auto``
    means comes from ``model_default`` (the assistant's model family), else from ``model``.
    ``system_prompt``, ``tools`` and ``history_tools`` are the assistant's, counted and
    written as in a chat; ``summary_tokens`` is what a compaction summary is reckoned at.
    ``providers`` configure a ``provider:model`` ``handoff_model`` (the defaults have no
    credentials). ``on_step`` may raise to stop the replay (a cancelled replay in the app)."""
    if policy is None:
        policy = replay_policy(
            strategy=strategy,
            window=window,
            threshold=threshold,
            compact_threshold=compact_threshold,
        )
    writer = handoff_model_for(handoff_model, providers)
    previous: HandoffArtifact | None = None
    info = model_info(model, window_override=policy.window_override)
    default = model_default or info.default_strategy
    context = ReplayContext(
        ContextEstimator(model, window_override=policy.window_override),
        policy,
        system_prompt=system_prompt,
        tools=tools,
        history_tools=history_tools,
        summary_tokens=summary_tokens,
    )
    oversized = oversized_messages(transcript, context, policy, info.context_window)
    usage = {u.message_index: u.input_tokens for u in transcript.usage}
    pristine = True  # the replayed context still equals the transcript's own prompt
    fell_short = False  # a compaction this turn left the context at or above its threshold
    masks = resets = compactions = 0
    futility = _FutileResets(info.context_window, policy.reset_threshold)
    first = 0  # the transcript message the open session started at
    started = time.perf_counter()
    total = len(transcript.messages)
    for index, message in enumerate(transcript.messages):
        sent_to_model = not message.additional_kwargs.get(NOT_SENT)
        if isinstance(message, AIMessage) and sent_to_model and context.messages:
            # Before the model call that wrote ``message``: the app's pipeline.
            if pristine and index in usage:
                context.observe(usage[index])
            after = index - 1  # the last transcript message the call was sent
            sent = context.measure()
            step = before_call(
                context,
                context.messages,
                sent,
                policy=policy,
                model_default=default,
                compaction_fell_short=fell_short,
            )
            if step.masked and context.last_mask is not None:
                context.adopt(step.messages)
                mask = context.last_mask
                masks, pristine = masks + 1, False
                yield ReplayMask(
                    message_index=after,
                    session_number=context.session,
                    utilization=round(sent.fraction, 4),
                    basis=sent.basis,
                    utilization_after=round(step.estimate.fraction, 4),
                    outputs=mask.outputs,
                    tokens_before=mask.tokens_before,
                    tokens_after=mask.tokens_after,
                )
            estimate, decision = step.estimate, step.decision
            if (why := futility.call(estimate.tokens, estimate.fraction)) is not None:
                raise ConfigurationError(why)
            if decision.action == "compact":
                done = context.compact()
                if done is not None:
                    measured = context.measure()
                    fell_short = measured.fraction >= policy.compact_threshold
                    compactions, pristine = compactions + 1, False
                    yield ReplayCompaction(
                        message_index=after,
                        timestamp=_when(transcript, after),
                        session_number=context.session,
                        utilization=round(estimate.fraction, 4),
                        basis=estimate.basis,
                        messages_summarized=done.summarized,
                        tokens_after=measured.tokens,
                    )
            elif decision.action == "reset":
                chat = _chat_start(transcript, context.original_index, context.originals, first)
                since = chat or 0
                if chat is not None:
                    previous, first = None, context.original_index[since]
                own = context.original_index[since:]
                metadata = _session_metadata(transcript, own, first, after)
                previous, opening = session_handoff(
                    context,
                    utilization=estimate.fraction,
                    model=model,
                    handoff_model=writer,
                    metadata=metadata,
                    previous=previous,
                    budget_tokens=budget_tokens,
                    window=info.context_window,
                    since=since,
                )
                yield ReplayReset(
                    message_index=after,
                    timestamp=_when(transcript, after),
                    utilization=round(estimate.fraction, 4),
                    basis=estimate.basis,
                    session_number=context.session + 1,
                    handoff_tokens=context.estimator.counter.count_text(previous.to_markdown()),
                    # A copy: the next handoff is written from ``previous``, not from the event.
                    handoff=previous.model_copy(deep=True),
                )
                context.open_session(opening)
                resets, pristine, fell_short, first = resets + 1, False, False, index
                futility.reset()
        if sent_to_model:
            if isinstance(message, HumanMessage) and context_kind(message) is None:
                fell_short = False  # a new turn
            context.append(message, index)
        if on_step is not None:
            measured = context.measure()
            on_step(ReplayStep(index, total, measured.tokens, measured.window, context.session))
    final = context.measure() if context.messages else None
    effective = default if policy.context_strategy == "auto" else policy.context_strategy
    yield ReplaySummary(
        format=transcript.format,
        messages=total,
        usage_points=len(usage),
        model=model,
        window=info.context_window,
        strategy=policy.context_strategy,
        effective_strategy=effective,
        mask_threshold=policy.mask_threshold,
        compact_threshold=policy.compact_threshold,
        reset_threshold=policy.reset_threshold,
        masks=masks,
        resets=resets,
        compactions=compactions,
        sessions=context.session,
        final_utilization=round(final.fraction, 4) if final else 0.0,
        # Messages alone past the reset point: each forced a reset it could not get under.
        oversized_messages=[i + 1 for i in oversized],
        skipped=transcript.skipped_note(),
        seconds=round(time.perf_counter() - started, 3),
    )
