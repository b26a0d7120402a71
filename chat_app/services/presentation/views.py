"""View models the UI renders. Services return these; Reflex states hold them as dicts.

They carry no internal database ids beyond the opaque thread/message ids the UI needs, so
the same shapes serve the owner's chat page and a read-only share page.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "WindowView",
    "ThreadSummary",
    "TimelineItem",
    "SessionChip",
    "MeterView",
    "TimelineView",
]


class _View(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ThreadSummary(_View):
    id: str
    title: str
    updated_at: datetime
    session_count: int = 1
    model_label: str = ""


class AssistantChoice(_View):
    """An assistant a new chat can be started with."""

    id: str
    name: str
    model_label: str


class TimelineItem(_View):
    """One row of the timeline.

    kind ``message``: a user or assistant message (``queued`` while waiting for a reset).
    kind ``tool``: one tool call with its result (collapsed to ``summary`` in the UI).
    kind ``divider``: the start of session ``session_number`` >= 2, with its handoff.
    kind ``marker``: a compaction / todo compression / warning note.
    """

    key: str
    kind: Literal["message", "tool", "divider", "marker"]
    seq: int = 0
    session_number: int = 1
    role: str = ""
    content: str = ""
    model: str = ""
    created_at: datetime | None = None
    queued: bool = False
    stopped: bool = False
    incomplete: bool = False
    """An assistant reply whose stream was cut off before the provider finished it."""
    usage: str = ""
    replaced: bool = False
    # The last row of an earlier reply: the one that offers "Use this reply".
    reply_end: bool = False
    """A reply (or its tool rows) the user regenerated: kept, no longer seen by the model."""
    """A message's tokens, for its tooltip (:func:`chat_app.services.presentation.message_usage.usage_label`)."""
    # tool rows
    tool_name: str = ""
    summary: str = ""
    tool_result: str = ""
    tool_failed: bool = False
    simulated: bool = False
    """A tool the offline simulator answered with scripted output (its shell), not a real run."""
    # marker rows: the stored event (``compaction``, ``masking``, ``todo_compressed``,
    # ``undo``) and the position of the session's context edit it stands for
    marker_event: str = ""
    edit: int | None = None
    problem: bool = False
    """A marker that reports a failure (an MCP server that could not be used)."""
    # divider rows
    trigger: str = ""
    utilization: float | None = None
    resetting: bool = False
    handoff: dict[str, Any] | None = None
    handoff_preview: str = ""
    handoff_markdown: str = ""
    handoff_filename: str = ""


class SessionChip(_View):
    number: int
    label: str
    anchor: str
    current: bool = False
    loaded: bool = True


class MeterView(_View):
    tokens: int = 0
    window: int = 1
    fraction: float = 0.0
    basis: Literal["exact", "calibrated", "approximate"] = "exact"
    compact_threshold: float = 0.5
    reset_threshold: float = 0.8
    strategy: str = "auto"
    effective_strategy: str = "reset"


class TimelineView(_View):
    thread: ThreadSummary
    items: list[TimelineItem] = Field(default_factory=list)
    sessions: list[SessionChip] = Field(default_factory=list)
    has_earlier: bool = False
    earliest_seq: int | None = None
    meter: MeterView = Field(default_factory=MeterView)
    model_label: str = ""
    # Queued messages not yet delivered (shown last, as queued); the page resumes them.
    pending: int = 0
    # The open session's last message was delivered but no turn took it: resumed too.
    awaiting_reply: bool = False
    # Why this chat's assistant cannot run now (its model setting); empty when it can.
    problem: str = ""


class WindowView(_View):
    """Rows of a thread read forward from some point (a session's start, or the last row
    shown), and whether the thread holds rows before and after them."""

    items: list[TimelineItem] = Field(default_factory=list)
    has_earlier: bool = False
    has_later: bool = False
    last_seq: int = 0  # the last stored row read: the next window reads on after it
