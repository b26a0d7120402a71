"""What-if replays of an imported session: "Replay with…" an assistant.

The engine's own replay (:func:`agent_core.replay._run.replay_transcript`) runs over the file kept
with the import, through the pipeline the assistant's chats run: before each model call of
the original, old tool outputs are masked at the assistant's mask threshold, then its
strategy and thresholds decide where Baton would have compacted or reset, with the same
guards, writing facts-only handoffs (no model call, so a replay costs nothing and is the
same every time). The window is the one the assistant's chats run on
(:func:`chat_app.services.runtime.runtime.window_for`: its override, ``BATON_SIM_WINDOW`` for the
simulator, else its model's), ``auto`` means what it means for the assistant's model, and
its system prompt and tool definitions are counted as in a chat. Tokens are counted for the
original model and calibrated by its reported usage. A finished run is stored with its
series, events and summary; a cancelled one stores nothing. The engine's events are typed
(:data:`agent_core.replay.ReplayEvent`); they become JSON where a run is stored and are read
back typed where it is loaded (:func:`stored_events`), runs stored by older versions too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from sqlmodel import Session, col, select

from agent_core import model_info, parse_transcript, replay_transcript
from agent_core.replay import (
    ReplayCompaction,
    ReplayMask,
    ReplayReset,
    ReplayStep,
    ReplaySummary,
)
from agent_core.strategies import effective_strategy
from chat_app.db import repo
from chat_app.db.models import ImportedTranscript, TranscriptReplay
from chat_app.errors import AppError
from chat_app.services.conversation.threads.importing import AGENT_NAMES
from chat_app.services.presentation.counts import counted
from chat_app.services.presentation.timeline import handoff_preview
from chat_app.services.runtime import runtime
from chat_app.services.runtime.backend import Backend

__all__ = [
    "StoredEvent",
    "stored_events",
    "stored_summary",
    "ReplayCancelled",
    "ReplayEventView",
    "ReplayView",
    "chart_rows",
    "list_replays",
    "run_replay",
    "MAX_POINTS",
]

#: Points kept per series for the chart (events are always kept).
MAX_POINTS = 600
_DEFAULT_MODEL = "gpt-4o"


class ReplayCancelled(AppError):
    """The user cancelled a replay; nothing is stored."""


#: What a run's ``events`` column holds: the replay's events but its summary (kept apart).
StoredEvent = Annotated[ReplayMask | ReplayCompaction | ReplayReset, Field(discriminator="event")]
_STORED: TypeAdapter[list[StoredEvent]] = TypeAdapter(list[StoredEvent])


def stored_events(stored: list[Any]) -> list[StoredEvent]:
    """The typed events of a stored run (its ``events`` column, as JSON); raises
    ``pydantic.ValidationError`` for a shape the engine never wrote there (a summary too)."""
    return _STORED.validate_python(stored)


def stored_summary(stored: dict[str, Any]) -> ReplaySummary:
    """The typed summary of a stored run (its ``summary`` column, as JSON)."""
    return ReplaySummary.model_validate(stored)


class ReplayEventView(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: str
    message_index: int = 0
    utilization: float = 0.0
    label: str
    preview: str = ""
    handoff: dict[str, Any] | None = None
    unchanged: bool = False  # a mask that left the figure as it was


class ReplayView(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    label: str
    masks: int = 0
    resets: int
    compactions: int
    window: int
    reset_threshold: float
    seconds: float
    events: list[ReplayEventView] = Field(default_factory=list)


def _own_import(db: Session, owner: str, thread_id: str) -> ImportedTranscript | None:
    if repo.get_thread(session=db, thread_id=thread_id, owner=owner) is None:
        return None
    return db.get(ImportedTranscript, thread_id)


def run_replay(
    app: Backend,
    owner: str,
    thread_id: str,
    assistant_id: str,
    *,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> str | None:
    """Replay the imported chat ``thread_id`` with the policy of ``assistant_id``; the stored
    run's id, or ``None`` when the chat is not an import of ``owner``'s or the assistant is
    gone. ``progress(done, total)`` is called as messages are replayed; ``cancelled()`` is
    polled and, once true, stops the run with :class:`ReplayCancelled`."""
    with app.read() as db:
        record = _own_import(db, owner, thread_id)
        assistant = repo.get_assistant(session=db, assistant_id=assistant_id)
        if record is None or assistant is None:
            return None
        source, filename, model = record.source, record.filename, record.model or _DEFAULT_MODEL
    # What the assistant's chats run with: its policy, on the window its chats get, with
    # its instructions and tools (raises ConfigurationError for a model that cannot run).
    setup, resolved = runtime.turn_setup(app, thread_id, assistant)
    window = runtime.window_for(app, assistant, resolved).tokens
    assistant_policy = setup.policy.model_copy(update={"window_override": window})
    model_default = model_info(resolved.name).default_strategy
    policy = {
        "assistant": assistant.name,
        "strategy": assistant_policy.context_strategy,
        "effective_strategy": effective_strategy(assistant_policy, model_default),
        "mask_threshold": assistant_policy.mask_threshold,
        "reset_threshold": assistant_policy.reset_threshold,
        "compact_threshold": assistant_policy.compact_threshold,
        "keep_recent_tokens": assistant_policy.keep_recent_tokens,
        "window_override": assistant.window_override,
        "model": model,
        "assistant_model": resolved.name,
    }
    transcript = parse_transcript(source, filename)
    series: list[list[int]] = []

    def on_step(step: ReplayStep) -> None:
        if cancelled is not None and cancelled():
            raise ReplayCancelled
        series.append([step.message_index, step.tokens])
        if progress is not None and (
            step.message_index % 25 == 0 or step.message_index == step.total - 1
        ):
            progress(step.message_index + 1, step.total)

    events: list[StoredEvent] = []
    summary: ReplaySummary | None = None
    for event in replay_transcript(
        transcript,
        model=model,
        policy=assistant_policy,
        model_default=model_default,
        system_prompt=setup.system_prompt,
        tools=setup.tools,
        history_tools=bool(assistant.history_tools),
        summary_tokens=setup.compaction_summary_tokens,
        handoff_model="facts",
        budget_tokens=setup.handoff_budget_tokens,
        on_step=on_step,
    ):
        match event:
            case ReplaySummary():
                summary = event
            case _:
                events.append(event)
    keep = {e.message_index for e in events}
    with app.write() as db:
        run = TranscriptReplay(
            thread_id=thread_id,
            assistant_name=policy["assistant"],
            policy={**policy, "window": window},
            series=_thin(series, keep),
            # As JSON, in the shape the command line prints (and older runs were stored in).
            events=[e.model_dump(mode="json") for e in events],
            summary=summary.model_dump(mode="json") if summary is not None else {},
        )
        db.add(run)
        db.commit()
        return run.id


def _thin(series: list[list[int]], keep: set[int]) -> list[list[int]]:
    """At most about ``MAX_POINTS`` points, always with those at and just before events."""
    if len(series) <= MAX_POINTS:
        return series
    step = len(series) / MAX_POINTS
    chosen = {int(i * step) for i in range(MAX_POINTS)} | {len(series) - 1}
    chosen |= {i for i, (index, _) in enumerate(series) if index in keep or index + 1 in keep}
    return [series[i] for i in sorted(chosen)]


def list_replays(app: Backend, owner: str, thread_id: str) -> list[ReplayView]:
    """The finished replays of an imported chat, oldest first."""
    with app.read() as db:
        if _own_import(db, owner, thread_id) is None:
            return []
        runs = db.exec(
            select(TranscriptReplay)
            .where(TranscriptReplay.thread_id == thread_id)
            .order_by(col(TranscriptReplay.created_at))
        ).all()
        return [_view(number, run) for number, run in enumerate(runs, start=1)]


def _view(number: int, run: TranscriptReplay) -> ReplayView:
    policy = run.policy
    window = int(policy.get("window") or 1)
    summary = stored_summary(run.summary)
    events = []
    for event in stored_events(run.events):
        percent = round(event.utilization * 100)
        after = event.message_index + 1
        now = percent  # what a mask leaves; other events are not measured after
        handoff = None
        match event:
            case ReplayReset(session_number=session_number):
                # The card's JSON, as the page shows it.
                handoff = event.handoff.model_dump(mode="json")
                label = (
                    f"Reset at {percent}% after message {after:,}: session "
                    f"{session_number} starts from the handoff"
                )
            case ReplayMask(utilization_after=utilization_after, outputs=outputs):
                now = round(utilization_after * 100)
                label = (
                    f"Mask at {percent}% after message {after:,}: "
                    f"{counted(outputs, 'old tool output')} masked, {percent}% → {now}%"
                )
            case ReplayCompaction(messages_summarized=summarized):
                label = (
                    f"Compaction at {percent}% after message {after:,}: "
                    f"{counted(summarized, 'message')} summarized"
                )
        events.append(
            ReplayEventView(
                kind=event.event,
                message_index=event.message_index,
                utilization=event.utilization,
                label=label,
                preview=handoff_preview(handoff),
                handoff=handoff,
                unchanged=event.event == "mask" and now == percent,
            )
        )
    label = (
        f"Replay {number} · {run.assistant_name} · {_policy_label(policy)}, {window:,}-token window"
    )
    return ReplayView(
        id=run.id,
        label=label,
        masks=summary.masks,
        resets=summary.resets,
        compactions=summary.compactions,
        window=window,
        reset_threshold=float(policy.get("reset_threshold") or 0.8),
        seconds=summary.seconds,
        events=fold_unchanged(events),
    )


def fold_unchanged(events: list[ReplayEventView]) -> list[ReplayEventView]:
    """Consecutive masks that changed nothing shown (``55% → 55%``), as one row: listed one
    by one they buried the steps that did."""
    folded: list[ReplayEventView] = []
    run: list[ReplayEventView] = []

    def flush() -> None:
        if len(run) == 1:
            folded.append(run[0])
        elif run:
            first, last = run[0].message_index + 1, run[-1].message_index + 1
            low, high = (
                round(min(e.utilization for e in run) * 100),
                round(max(e.utilization for e in run) * 100),
            )
            at = f"{low}%" if low == high else f"{low}–{high}%"
            folded.append(
                ReplayEventView(
                    kind="mask",
                    message_index=run[0].message_index,
                    utilization=run[0].utilization,
                    label=f"{len(run):,} masks after messages {first:,}–{last:,} changed "
                    f"nothing shown (at {at})",
                    unchanged=True,
                )
            )
        run.clear()

    for event in events:
        if event.unchanged:
            run.append(event)
            continue
        flush()
        folded.append(event)
    flush()
    return folded


def _policy_label(policy: dict[str, Any]) -> str:
    """``auto (compact): mask at 35%, compact at 50%, reset at 80%``: what acted, and when.
    Runs stored before masking was replayed name no mask threshold."""
    strategy = str(policy.get("strategy") or "")
    effective = policy.get("effective_strategy")
    parts = []
    if policy.get("mask_threshold") is not None:
        parts.append(f"mask at {round(float(policy['mask_threshold']) * 100)}%")
    if (effective or strategy) == "compact":
        parts.append(f"compact at {round(float(policy.get('compact_threshold') or 0) * 100)}%")
    if strategy != "compact":
        parts.append(f"reset at {round(float(policy.get('reset_threshold') or 0) * 100)}%")
    name = f"{strategy} ({effective})" if strategy == "auto" and effective else strategy
    return f"{name}: {', '.join(parts)}"


def chart_rows(
    app: Backend, owner: str, thread_id: str, replay_id: str | None
) -> list[dict[str, Any]]:
    """Rows for the chart of both runs, one per message index that has a point:
    ``original`` (the original agent's context at each call it reported), ``baton`` (the
    replay's), and the marker series ``original_compaction`` / ``baton_mask`` /
    ``baton_reset`` / ``baton_compaction`` (the tokens where each happened)."""
    with app.read() as db:
        record = _own_import(db, owner, thread_id)
        if record is None:
            return []
        run = db.get(TranscriptReplay, replay_id) if replay_id else None
        if run is not None and run.thread_id != thread_id:
            run = None
        rows: dict[int, dict[str, Any]] = {}

        def at(index: int) -> dict[str, Any]:
            return rows.setdefault(index, {"message": index + 1})

        for index, tokens in _thin([list(p) for p in record.usage], set()):
            at(index)["original"] = tokens
        for index, before, _after in record.compactions:
            if before is not None:
                at(max(index - 1, 0))["original_compaction"] = before
        if run is not None:
            points = dict((i, t) for i, t in run.series)
            for index, tokens in run.series:
                at(index)["baton"] = tokens
            for event in stored_events(run.events):
                index = event.message_index
                at(index)[_MARKER_KEYS[event.event]] = points.get(index, 0)
        return [rows[i] for i in sorted(rows)]


_MARKER_KEYS = {"reset": "baton_reset", "mask": "baton_mask", "compaction": "baton_compaction"}


def agent_name(record: ImportedTranscript) -> str:
    return AGENT_NAMES.get(record.format, record.format)
