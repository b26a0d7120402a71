"""Render-ready rows: the service view models (``TimelineItem``, ``SessionChip``,
``MeterView``, ``ThreadSummary``) reshaped for Reflex components, one module per concept.

Reflex components cannot run Python on runtime data, so every label, anchor and list the
page shows is prepared here, once, when an item arrives. The rows are dataclasses (Reflex's
recommended custom var type); the functions are pure, no I/O.
"""

from chat_app.states.rows.handoff_cards import FileRow, HandoffCard, checks_line, handoff_card
from chat_app.states.rows.meter import MeterBar, meter_bar
from chat_app.states.rows.sessions import (
    ChipRow,
    anchors_for_tail,
    chip_row,
    with_anchors,
    with_new_session,
)
from chat_app.states.rows.thread_rows import ThreadRow, thread_row
from chat_app.states.rows.timeline_rows import (
    DividerPart,
    MarkerPart,
    TimelineRow,
    ToolCallPart,
    plain_rows,
    resetting_row,
    timeline_row,
    unwrapped,
    upsert,
)
from chat_app.states.rows.times import exact_time, relative_time

__all__ = [
    "FileRow",
    "HandoffCard",
    "ToolCallPart",
    "MarkerPart",
    "DividerPart",
    "TimelineRow",
    "ChipRow",
    "MeterBar",
    "ThreadRow",
    "timeline_row",
    "handoff_card",
    "checks_line",
    "resetting_row",
    "chip_row",
    "meter_bar",
    "thread_row",
    "relative_time",
    "exact_time",
    "with_anchors",
    "anchors_for_tail",
    "with_new_session",
    "upsert",
    "plain_rows",
    "unwrapped",
]
