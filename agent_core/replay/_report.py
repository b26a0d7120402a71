"""A replay as one self-contained HTML page: the context chart and the handoffs.

Everything is inline (SVG and CSS, no script, no fonts or images fetched), so the file opens
offline, can be attached to an issue, and shows the same thing in every browser. The markup is
in Jinja templates (``agent_core/templates/``) with autoescaping on, so no text from a
transcript or a handoff can become markup; this module computes the chart's geometry.
Rendering is a pure function of the replay's steps and events.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup
from pydantic import BaseModel

from agent_core.replay._agent_cuts import AgentCut
from agent_core.replay._events import (
    ReplayCompaction,
    ReplayEvent,
    ReplayMask,
    ReplayReset,
    ReplaySummary,
)
from agent_core.replay._run import ReplayStep
from agent_core.transcripts._loader import FORMAT_NAMES

__all__ = ["render_report", "chart_svg"]

_WIDTH, _HEIGHT = 960, 320
_LEFT, _RIGHT, _TOP, _BOTTOM = 64, 16, 16, 36
# More points than pixels only slows the browser; keep the peak of each bucket so a reset's
# high-water mark is never averaged away.
_MAX_POINTS = 2 * _WIDTH
#: The events marked on the chart and carded below it (each mark's tooltip names its ``event``).
_Marked = ReplayReset | ReplayCompaction | ReplayMask
_SUMMARY_KEYS = (
    "format",
    "messages",
    "model",
    "window",
    "strategy",
    "effective_strategy",
    "mask_threshold",
    "compact_threshold",
    "reset_threshold",
    "sessions",
    "masks",
    "compactions",
    "resets",
    "final_utilization",
    "seconds",
)


@cache
def _templates() -> Environment:
    env = Environment(
        loader=PackageLoader("agent_core", "templates"),
        autoescape=select_autoescape(["html", "svg", "j2"]),
        trim_blocks=False,
        keep_trailing_newline=False,
    )
    env.filters["tojson_pretty"] = _json_pretty
    return env


def _json_pretty(value: Any) -> str:
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    return json.dumps(value, indent=2, ensure_ascii=False)


def _downsample(steps: Sequence[ReplayStep]) -> list[ReplayStep]:
    if len(steps) <= _MAX_POINTS:
        return list(steps)
    size = len(steps) / _MAX_POINTS
    buckets = (steps[int(i * size) : int((i + 1) * size)] for i in range(_MAX_POINTS))
    return [max(bucket, key=lambda s: s.tokens) for bucket in buckets if bucket]


def chart_svg(steps: Sequence[ReplayStep], events: Sequence[ReplayEvent]) -> str:
    """The context size per message as an SVG line, the window as a dashed line, and a
    vertical mark at each reset (red), compaction (amber) and mask (grey) with its message
    index."""
    total = max((s.total for s in steps), default=1)
    window = max((s.window for s in steps), default=1)
    top = max([window, *(s.tokens for s in steps)])
    plot_w, plot_h = _WIDTH - _LEFT - _RIGHT, _HEIGHT - _TOP - _BOTTOM

    def x(index: float) -> str:
        return f"{_LEFT + plot_w * index / max(total - 1, 1):.1f}"

    def y(tokens: float) -> float:
        return _TOP + plot_h * (1 - tokens / top)

    ticks = [
        {
            "y": f"{y(top * t / 4):.1f}",
            "label_y": f"{y(top * t / 4) + 4:.1f}",
            "label": f"{top * t / 4 / 1000:.0f}k",
        }
        for t in range(5)
    ]
    marks = [
        {
            "kind": e.event,
            "x": x(e.message_index),
            "label": f"{e.event} after message {e.message_index}, {e.utilization:.0%} of the window",
        }
        for e in _marked(events)
    ]
    path = " ".join(
        f"{'M' if i == 0 else 'L'}{x(s.message_index)},{y(s.tokens):.1f}"
        for i, s in enumerate(_downsample(steps))
    )
    return (
        _templates()
        .get_template("replay_chart.svg.j2")
        .render(
            width=_WIDTH,
            height=_HEIGHT,
            left=_LEFT,
            right=_WIDTH - _RIGHT,
            top=_TOP,
            bottom=_TOP + plot_h,
            ticks=ticks,
            last_message=total - 1,
            window=window,
            window_y=f"{y(window):.1f}",
            marks=marks,
            path=path,
        )
    )


def render_report(
    title: str,
    steps: Sequence[ReplayStep],
    events: Sequence[ReplayEvent],
    *,
    agent_cuts: Sequence[AgentCut] = (),
) -> str:
    """The whole HTML page for a replay of ``title`` (usually the transcript's file name):
    the chart and cards of the replay's ``steps`` and ``events`` when there are any, the
    handoff's size per generation and the stretch between cuts, and, given ``agent_cuts``,
    the agent's own summary beside Baton's handoff at each of its compactions."""
    summary = next((e for e in events if isinstance(e, ReplaySummary)), None)
    agent = FORMAT_NAMES.get(agent_cuts[0].agent, agent_cuts[0].agent) if agent_cuts else ""
    return (
        _templates()
        .get_template("replay_report.html.j2")
        .render(
            title=title,
            summary=[(key, getattr(summary, key)) for key in _SUMMARY_KEYS] if summary else [],
            # built by the autoescaped chart template
            chart=Markup(chart_svg(steps, events)) if steps else None,
            cards=_marked(events),
            generations=generations(events),
            agent=agent,
            agent_cuts=agent_cuts,
        )
    )


def _marked(events: Sequence[ReplayEvent]) -> list[_Marked]:
    return [e for e in events if isinstance(e, _Marked)]


def generations(events: Sequence[ReplayEvent]) -> list[dict[str, Any]]:
    """One row per compaction or reset: messages (and minutes, where the transcript has
    times) since the previous one (or the start), and for a reset its handoff's tokens
    against the first handoff's."""
    rows: list[dict[str, Any]] = []
    first: int | None = None
    last_index, last_time = -1, None
    for event in events:
        match event:
            case ReplayReset():
                tokens = event.handoff_tokens
            case ReplayCompaction():
                tokens = None
            case _:
                continue
        index = event.message_index
        when = _time(event.timestamp)
        if tokens is not None and first is None:
            first = tokens
        rows.append(
            {
                "kind": event.event,
                "message_index": index,
                "messages": index - last_index,
                "minutes": round((when - last_time).total_seconds() / 60, 1)
                if when and last_time
                else None,
                "handoff_tokens": tokens,
                "against_first": round(tokens / first, 2) if tokens is not None and first else None,
            }
        )
        last_index, last_time = index, when or last_time
    return rows


def _time(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
