"""The context meter: a ``MeterView`` as bar geometry and labels."""

from __future__ import annotations

import dataclasses

from chat_app.services.presentation.views import MeterView

__all__ = ["MeterBar", "meter_bar"]


@dataclasses.dataclass
class MeterBar:
    tokens: int = 0
    window: int = 1
    percent: float = 0.0
    rounded: int = 0  # the label's number: the warn notice speaks of the same figure
    label: str = "0%"
    title: str = ""
    compact_percent: float = 50.0
    reset_percent: float = 80.0
    show_compact: bool = True
    show_reset: bool = True
    # "Context at 41%"; past the window (an imported thread), said plainly instead.
    said: str = "Context at 0%"
    over_window: bool = False  # no threshold is ahead of it: the next turn acts first
    level: str = "ok"  # ok | warn | high: colours the bar


def meter_bar(meter: MeterView) -> MeterBar:
    """How full the context is, as the bar draws it: where compaction and reset act, and
    whether each acts at all (an explicit "compact" strategy never resets; "auto" resolved
    to compact resets when compaction cannot help, so both act then)."""
    tokens, window, fraction = meter.tokens, meter.window or 1, meter.fraction
    compact_percent = meter.compact_threshold * 100
    reset_percent = meter.reset_threshold * 100
    show_compact = meter.effective_strategy != "reset"
    show_reset = meter.strategy != "compact"
    acting = [
        *([f"compact at {compact_percent:.0f}%"] if show_compact else []),
        *([f"reset at {reset_percent:.0f}%"] if show_reset else []),
    ]
    approx = "" if meter.basis == "exact" else "~"
    percent = max(0.0, min(fraction * 100, 100.0))
    level = "high" if percent >= reset_percent else "warn" if percent >= compact_percent else "ok"
    return MeterBar(
        tokens=tokens,
        window=window,
        percent=round(percent, 1),
        rounded=round(fraction * 100),
        label=f"{approx}{round(fraction * 100)}%",
        said=(
            f"Context at {approx}{round(fraction * 100)}%"
            if fraction <= 1
            else f"The context is over the model's window ({approx}{tokens:,} of {window:,} tokens)"
        ),
        over_window=fraction > 1,
        title=" · ".join([f"{approx}{tokens:,} of {window:,} tokens", *acting]),
        compact_percent=compact_percent,
        reset_percent=reset_percent,
        show_compact=show_compact,
        show_reset=show_reset,
        level=level,
    )
