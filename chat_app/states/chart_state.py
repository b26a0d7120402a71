"""The context chart dialog of the open chat: read from the store each time it opens."""

from __future__ import annotations

import reflex as rx

from chat_app.root import root
from chat_app.services.conversation.runs import thread_chart
from chat_app.services.presentation.counts import counted
from chat_app.states.identity import IdentityState

__all__ = ["ChartState"]


def _thread_id(path: str) -> str:
    parts = [part for part in path.split("/") if part]
    return parts[-1] if len(parts) >= 2 and parts[-2] == "t" else ""


class ChartState(IdentityState):
    open: bool = False
    # One dict per call: "call", and per series key its percent (plus _tokens, _session).
    points: list[dict] = []
    # Series, markers and thresholds as plain dicts (see services.conversation.runs.context_chart).
    series: list[dict[str, str]] = []
    markers: list[dict] = []
    thresholds: list[dict] = []
    calls: int = 0
    summary: str = ""

    @rx.event
    def set_open(self, value: bool) -> None:
        self.open = value
        if value:
            self._load()

    @rx.event
    def reload(self) -> None:
        self._load()

    def _load(self) -> None:
        chart = thread_chart(root(), self._owner(), _thread_id(self.router.url.path))
        if chart is None:
            self.points, self.series, self.markers, self.thresholds, self.calls = [], [], [], [], 0
            self.summary = "No chart for this chat."
            return
        self.points = chart.points
        self.series = [s.model_dump() for s in chart.series]
        self.markers = [m.model_dump() for m in chart.markers]
        self.thresholds = [t.model_dump() for t in chart.thresholds]
        self.calls = chart.calls
        counts = {
            kind: sum(1 for m in chart.markers if m.kind == kind)
            for kind in ("reset", "compaction", "mask")
        }
        self.summary = " · ".join(
            [
                counted(chart.calls, "model call"),
                counted(counts["reset"], "reset"),
                counted(counts["compaction"], "compaction"),
                counted(counts["mask"], "mask"),
            ]
        )
        # The handoff and summary calls are model calls too: what they cost, beside the rest.
        spent = [m for m in chart.markers if m.cost]
        if spent:
            given = sum(m.input_tokens for m in spent)
            written = sum(m.output_tokens for m in spent)
            self.summary += f" · handoff and summary calls: {given:,} in · {written:,} out tokens"
