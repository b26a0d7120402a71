"""The context chart: a thread's utilization at every model call, with its resets,
compactions and masks, what the handoff and summary calls cost, and the assistant's
thresholds.

A chart holds one or more *runs* of the same work (series): the chat as it ran, and, later,
the same messages replayed under another policy. Each run is built by a pure function from
what it stored; :func:`merge_runs` lines them up call by call for one plot.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from agent_core import SessionRecord, StoredMessage, model_info
from agent_core.strategies import CONTEXT_META, effective_strategy, warn_threshold
from chat_app.services.conversation.runs.reset_control import owned_setup
from chat_app.services.runtime.backend import Backend

__all__ = [
    "ChartSeries",
    "ChartMarker",
    "ChartThreshold",
    "ChartRun",
    "ContextChart",
    "thread_run",
    "merge_runs",
    "thresholds_for",
    "thread_chart",
]

MarkerKind = Literal["reset", "compaction", "mask", "discarded"]
_MARKER_COLORS = {
    "reset": "#e5484d",
    "compaction": "#f76b15",
    "mask": "#8d8d8d",
    "discarded": "#b8b8b8",
}
_EVENT_KINDS: dict[str, MarkerKind] = {
    "compaction": "compaction",
    "masking": "mask",
    "compaction_discarded": "discarded",
}
_MARKER_LABELS = {
    "compaction": "Compaction",
    "mask": "Mask",
    "discarded": "Compaction discarded (summary not smaller)",
}


class _Chart(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ChartSeries(_Chart):
    key: str  # the points' field holding this run's utilization (percent)
    label: str
    color: str


class ChartMarker(_Chart):
    """A reset, compaction or mask, drawn between the calls it came between; a reset's
    handoff call and a compaction's summary call are model calls too, and say what they
    cost (``cost``: empty when nothing was recorded)."""

    series: str
    kind: MarkerKind
    call: float  # between ``after`` and the next call: where the line is drawn
    after: int  # the calls before it
    label: str
    color: str
    input_tokens: int = 0
    output_tokens: int = 0
    cost: str = ""


class ChartThreshold(_Chart):
    percent: float
    label: str
    color: str


class ChartRun(_Chart):
    series: ChartSeries
    percents: list[float]  # utilization of call 1, 2, … in percent
    tokens: list[int]
    sessions: list[int]
    markers: list[ChartMarker]


class ContextChart(_Chart):
    series: list[ChartSeries]
    points: list[dict[str, Any]]
    markers: list[ChartMarker]
    thresholds: list[ChartThreshold]
    calls: int


def thread_run(
    sessions: Sequence[SessionRecord],
    rows: Mapping[str, Sequence[StoredMessage]],
    series: ChartSeries,
) -> ChartRun:
    """A run from a thread's stored rows: every reply that records its call's utilization is
    a point; a session start after the first, and each compaction or mask marker row, is a
    marker placed after the calls before it."""
    percents: list[float] = []
    tokens: list[int] = []
    numbers: list[int] = []
    markers: list[ChartMarker] = []

    def mark(kind: MarkerKind, label: str, usage: Any = None) -> None:
        spent = usage if isinstance(usage, dict) else {}
        given, written = int(spent.get("input_tokens") or 0), int(spent.get("output_tokens") or 0)
        call = "handoff call" if kind == "reset" else "summary call"
        markers.append(
            ChartMarker(
                series=series.key,
                kind=kind,
                call=len(percents) + 0.5,
                after=len(percents),
                label=label,
                color=_MARKER_COLORS[kind],
                input_tokens=given,
                output_tokens=written,
                cost=f"{call}: {given:,} in · {written:,} out tokens" if spent else "",
            )
        )

    for session in sorted(sessions, key=lambda s: s.number):
        session_rows = rows.get(session.id, ())
        if session.number > 1:
            opening = next((row for row in session_rows if row.role == "handoff"), None)
            mark(
                "reset",
                f"Session {session.number}",
                opening.meta.get("usage") if opening is not None else None,
            )
        for row in session_rows:
            kind = _EVENT_KINDS.get(str(row.meta.get("event"))) if row.role == "event" else None
            if kind is not None:
                mark(kind, _MARKER_LABELS[kind], row.meta.get("usage"))
            sample = row.meta.get(CONTEXT_META) if row.role == "assistant" else None
            if isinstance(sample, dict):
                percents.append(round(float(sample.get("fraction", 0.0)) * 100, 1))
                tokens.append(int(sample.get("tokens", 0)))
                numbers.append(session.number)
    return ChartRun(
        series=series, percents=percents, tokens=tokens, sessions=numbers, markers=markers
    )


def merge_runs(runs: Sequence[ChartRun]) -> list[dict[str, Any]]:
    """One point per call number, holding each run's percent (and tokens, session) under
    its series key: the shape a line chart with one line per run reads."""
    length = max((len(run.percents) for run in runs), default=0)
    points: list[dict[str, Any]] = []
    for index in range(length):
        point: dict[str, Any] = {"call": index + 1}
        for run in runs:
            if index < len(run.percents):
                key = run.series.key
                point[key] = run.percents[index]
                point[f"{key}_tokens"] = run.tokens[index]
                point[f"{key}_session"] = run.sessions[index]
        points.append(point)
    return points


def thresholds_for(policy: Any, model_default: Literal["compact", "reset"]) -> list[ChartThreshold]:
    """The lines the chart draws: warn, and the thresholds the policy acts on."""
    lines = [
        ChartThreshold(
            percent=round(warn_threshold(policy, model_default) * 100, 1),
            label="warn",
            color="#ffc53d",
        )
    ]
    if policy.mask_threshold is not None:
        lines.append(
            ChartThreshold(
                percent=round(policy.mask_threshold * 100, 1), label="mask", color="#8d8d8d"
            )
        )
    if effective_strategy(policy, model_default) == "compact":
        lines.append(
            ChartThreshold(
                percent=round(policy.compact_threshold * 100, 1), label="compact", color="#f76b15"
            )
        )
    if policy.context_strategy != "compact":
        lines.append(
            ChartThreshold(
                percent=round(policy.reset_threshold * 100, 1), label="reset", color="#e5484d"
            )
        )
    return lines


THIS_CHAT = ChartSeries(key="chat", label="This chat", color="#3e63dd")


def thread_chart(app: Backend, owner: str | None, thread_id: str) -> ContextChart | None:
    """The owner's thread as a chart with one run (the chat itself); None if not theirs."""
    setup = owned_setup(app, owner, thread_id)
    if setup is None:
        return None
    store = setup.store
    sessions = store.sessions(thread_id)
    run = thread_run(sessions, {s.id: store.messages(s.id) for s in sessions}, THIS_CHAT)
    info = model_info(setup.model_name, window_override=setup.policy.window_override)
    return ContextChart(
        series=[run.series],
        points=merge_runs([run]),
        markers=run.markers,
        thresholds=thresholds_for(setup.policy, info.default_strategy),
        calls=len(run.percents),
    )
