"""A replay as one self-contained HTML page: the context chart and the handoffs.

Everything is inline (SVG and CSS, no script, no fonts or images fetched), so the file opens
offline, can be attached to an issue, and shows the same thing in every browser. Rendering is
a pure function of the replay's steps and events.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape
from typing import Any

from agent_core.replay import ReplayStep

__all__ = ["render_report", "chart_svg"]

_WIDTH, _HEIGHT = 960, 320
_LEFT, _RIGHT, _TOP, _BOTTOM = 64, 16, 16, 36
# More points than pixels only slows the browser; keep the peak of each bucket so a reset's
# high-water mark is never averaged away.
_MAX_POINTS = 2 * _WIDTH


def _downsample(steps: Sequence[ReplayStep]) -> list[ReplayStep]:
    if len(steps) <= _MAX_POINTS:
        return list(steps)
    size = len(steps) / _MAX_POINTS
    buckets = (steps[int(i * size): int((i + 1) * size)] for i in range(_MAX_POINTS))
    return [max(bucket, key=lambda s: s.tokens) for bucket in buckets if bucket]


#: The events marked on the chart, and the word each mark's tooltip uses.
_MARKED = {"reset": "reset", "compaction": "compaction", "mask": "mask"}


def chart_svg(steps: Sequence[ReplayStep], events: Sequence[dict[str, Any]]) -> str:
    """The context size per message as an SVG line, the window as a dashed line, and a
    vertical mark at each reset (red), compaction (amber) and mask (grey) with its message
    index."""
    total = max((s.total for s in steps), default=1)
    window = max((s.window for s in steps), default=1)
    top = max([window, *(s.tokens for s in steps)])
    plot_w, plot_h = _WIDTH - _LEFT - _RIGHT, _HEIGHT - _TOP - _BOTTOM

    def x(index: float) -> float:
        return _LEFT + plot_w * index / max(total - 1, 1)

    def y(tokens: float) -> float:
        return _TOP + plot_h * (1 - tokens / top)

    parts = [f'<svg viewBox="0 0 {_WIDTH} {_HEIGHT}" '
             f'role="img" aria-label="context tokens per message" class="chart">']
    for tick in range(5):
        tokens = top * tick / 4
        parts.append(f'<line class="grid" x1="{_LEFT}" x2="{_WIDTH - _RIGHT}" '
                     f'y1="{y(tokens):.1f}" y2="{y(tokens):.1f}"/>'
                     f'<text class="axis" x="{_LEFT - 6}" y="{y(tokens) + 4:.1f}" '
                     f'text-anchor="end">{tokens / 1000:.0f}k</text>')
    parts.append(f'<text class="axis" x="{_LEFT}" y="{_HEIGHT - 8}">message 0</text>'
                 f'<text class="axis" x="{_WIDTH - _RIGHT}" y="{_HEIGHT - 8}" '
                 f'text-anchor="end">message {total - 1}</text>')
    parts.append(f'<line class="window" x1="{_LEFT}" x2="{_WIDTH - _RIGHT}" y1="{y(window):.1f}" '
                 f'y2="{y(window):.1f}"><title>window {window} tokens</title></line>')
    for event in events:
        kind = event.get("event")
        if kind not in _MARKED:
            continue
        at = x(event["message_index"])
        label = (f'{_MARKED[kind]} after message {event["message_index"]}, '
                 f'{event["utilization"]:.0%} of the window')
        parts.append(f'<line class="mark {kind}" x1="{at:.1f}" x2="{at:.1f}" y1="{_TOP}" '
                     f'y2="{_TOP + plot_h}"><title>{escape(label)}</title></line>')
    points = _downsample(steps)
    if points:
        path = " ".join(f"{'M' if i == 0 else 'L'}{x(s.message_index):.1f},{y(s.tokens):.1f}"
                        for i, s in enumerate(points))
        parts.append(f'<path class="tokens" d="{path}"/>')
    parts.append("</svg>")
    return "".join(parts)


_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1000px;color:#1d2430}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:28px 0 8px}
.meta{color:#5b6574} table{border-collapse:collapse} td,th{padding:2px 12px 2px 0;text-align:left}
.chart{width:100%;height:auto;background:#fafbfc;border:1px solid #e1e5ea;border-radius:6px}
.grid{stroke:#e6e9ee} .axis{font-size:11px;fill:#5b6574}
.window{stroke:#5b6574;stroke-dasharray:6 4} .tokens{fill:none;stroke:#2f6fde;stroke-width:1.4}
.mark{stroke-width:1.5} .reset{stroke:#d64545} .compaction{stroke:#d89b1d}
.mark.mask{stroke:#8d8d8d;stroke-dasharray:3 3}
.legend span{margin-right:16px} .swatch{display:inline-block;width:14px;height:3px;
vertical-align:middle;margin-right:4px}
.card{border:1px solid #e1e5ea;border-left:4px solid #d64545;border-radius:6px;
padding:8px 12px;margin:10px 0} .card.compaction{border-left-color:#d89b1d}
.card.mask{border-left-color:#8d8d8d}
.card h3{font-size:14px;margin:0 0 4px} .card ul{margin:2px 0 6px 18px;padding:0}
pre{white-space:pre-wrap;font-size:12px;background:#f4f6f8;padding:8px;border-radius:4px}
"""

_LIST_FIELDS = (("constraints", "Constraints"), ("in_progress", "In progress"),
                ("remaining_tasks", "Remaining"), ("key_decisions", "Decisions"))


def _items(values: Sequence[str], limit: int = 8) -> str:
    shown = "".join(f"<li>{escape(str(v))}</li>" for v in values[:limit])
    more = f"<li>… {len(values) - limit} more</li>" if len(values) > limit else ""
    return f"<ul>{shown}{more}</ul>"


def _handoff_card(event: dict[str, Any]) -> str:
    handoff = event["handoff"]
    head = (f'<h3>Session {event["session_number"] - 1} → {event["session_number"]}: reset at '
            f'message {event["message_index"]} ({event["utilization"]:.0%}, '
            f'{escape(event["basis"])})</h3>')
    body = []
    for field, title in (("goal", "Goal"), ("current_state_summary", "State"),
                         ("next_step", "Next step")):
        if handoff.get(field):
            body.append(f"<div><b>{title}:</b> {escape(str(handoff[field]))}</div>")
    files = [f["path"] for f in handoff.get("files_modified") or []]
    if files:
        body.append(f"<div><b>Files modified:</b></div>{_items(files)}")
    for field, title in _LIST_FIELDS:
        if handoff.get(field):
            body.append(f"<div><b>{title}:</b></div>{_items(handoff[field])}")
    raw = escape(json.dumps(handoff, indent=2, ensure_ascii=False))
    body.append(f"<details><summary>Full handoff</summary><pre>{raw}</pre></details>")
    return f'<section class="card reset">{head}{"".join(body)}</section>'


def _compaction_card(event: dict[str, Any]) -> str:
    return (f'<section class="card compaction"><h3>Compaction at message '
            f'{event["message_index"]} ({event["utilization"]:.0%})</h3>'
            f'<div>{event["messages_summarized"]} messages summarized; '
            f'{event["tokens_after"]} tokens after.</div></section>')


def _mask_card(event: dict[str, Any]) -> str:
    after = event.get("utilization_after")
    now = f" → {after:.0%}" if isinstance(after, int | float) else ""
    return (f'<section class="card mask"><h3>Mask after message {event["message_index"]} '
            f'({event["utilization"]:.0%}{now})</h3>'
            f'<div>{event["outputs"]} old tool outputs masked: {event["tokens_before"]:,} → '
            f'{event["tokens_after"]:,} tokens.</div></section>')


_CARDS = {"reset": _handoff_card, "compaction": _compaction_card, "mask": _mask_card}


def render_report(title: str, steps: Sequence[ReplayStep],
                  events: Sequence[dict[str, Any]]) -> str:
    """The whole HTML page for a replay of ``title`` (usually the transcript's file name)."""
    summary = next((e for e in events if e.get("event") == "summary"), {})
    rows = "".join(f"<tr><th>{escape(k)}</th><td>{escape(str(summary[k]))}</td></tr>"
                   for k in ("format", "messages", "model", "window", "strategy",
                             "effective_strategy", "mask_threshold", "compact_threshold",
                             "reset_threshold", "sessions", "masks", "compactions", "resets",
                             "final_utilization", "seconds")
                   if k in summary)
    cards = [_CARDS[e["event"]](e) for e in events if e.get("event") in _CARDS]
    legend = ('<div class="legend"><span><i class="swatch" style="background:#2f6fde"></i>'
              'context tokens</span><span><i class="swatch" style="background:#5b6574"></i>'
              'window</span><span><i class="swatch" style="background:#d64545"></i>reset</span>'
              '<span><i class="swatch" style="background:#d89b1d"></i>compaction</span>'
              '<span><i class="swatch" style="background:#8d8d8d"></i>mask</span></div>')
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f"<title>Baton replay: {escape(title)}</title><style>{_CSS}</style></head><body>"
            f"<h1>Baton replay: {escape(title)}</h1>"
            f'<p class="meta">What Baton\'s engine would have done over this transcript: the '
            f"context size after each message, and where it masked, compacted or reset.</p>"
            f"<table>{rows}</table><h2>Context</h2>{legend}{chart_svg(steps, events)}"
            f"<h2>Masks, compactions and handoffs ({len(cards)})</h2>"
            f'{"".join(cards) or "<p>None: the context never filled.</p>"}</body></html>')
