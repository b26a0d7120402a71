"""The timeline's rows: a ``TimelineItem`` as a render-ready row, and the few ways the page
changes its list of rows (a row replaced or appended, untracked copies to change)."""

from __future__ import annotations

import copy
import dataclasses
from typing import TypeVar

from chat_app.services.presentation.views import TimelineItem
from chat_app.states.rows.handoff_cards import HandoffCard, divider_header, handoff_card
from chat_app.states.rows.times import exact_time, iso_time, relative_time

__all__ = [
    "ToolCallPart",
    "MarkerPart",
    "DividerPart",
    "TimelineRow",
    "timeline_row",
    "resetting_row",
    "upsert",
    "plain_rows",
    "unwrapped",
]

_T = TypeVar("_T")


@dataclasses.dataclass
class ToolCallPart:
    """A tool row's call and result (see :class:`HandoffCard` for why it is a part)."""

    tool_name: str = ""
    summary: str = ""
    tool_result: str = ""
    tool_failed: bool = False
    simulated: bool = False


@dataclasses.dataclass
class MarkerPart:
    """A marker row's note: the stored event (``compaction``, ``masking``,
    ``todo_compressed``, ``undo``; see ``services.presentation.views.TimelineItem``), the
    position of the session's context edit it stands for (-1: none), and whether it reports a
    failure (an MCP server that did not start)."""

    marker_event: str = ""
    edit: int = -1
    problem: bool = False


@dataclasses.dataclass
class DividerPart:
    """A divider's label, the time the browser keeps its "5 min ago" fresh from, how the
    session started, and its handoff card (none until the reset has one)."""

    trigger: str = ""
    header: str = ""
    created_iso: str = ""
    card: list[HandoffCard] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class TimelineRow:
    key: str = ""
    kind: str = "message"
    seq: int = 0
    session_number: int = 1
    anchor: str = ""
    role: str = ""
    content: str = ""
    model: str = ""
    time_label: str = ""
    # The tooltip of a message's time: when exactly, and its tokens (messages only: no
    # other row shows a time).
    time_title: str = ""
    usage: str = ""
    replaced: bool = False
    # The last row of an earlier reply: it offers "Use this reply" for the whole reply.
    reply_end: bool = False
    queued: bool = False
    stopped: bool = False
    incomplete: bool = False
    # tool rows: one call and its result; none on every other row
    tool: list[ToolCallPart] = dataclasses.field(default_factory=list)
    # marker rows: their note; none on every other row
    marker: list[MarkerPart] = dataclasses.field(default_factory=list)
    # divider rows: the divider (none on every other row); a placeholder while resetting
    divider: list[DividerPart] = dataclasses.field(default_factory=list)
    resetting: bool = False


_LIST_FIELDS = tuple(
    f.name for f in dataclasses.fields(TimelineRow) if str(f.type).startswith("list")
)


def unwrapped(value: _T) -> _T:
    """A state var's value without Reflex's change tracker: to read it (cheaply) or copy it.
    Iterating a tracked list wraps each item it yields; reading never needs that."""
    return getattr(value, "__wrapped__", value)


def _plain(row: TimelineRow) -> TimelineRow:
    raw = unwrapped(row)
    copied = copy.copy(raw)
    for name in _LIST_FIELDS:
        items = getattr(raw, name)
        if items:
            setattr(copied, name, [unwrapped(item) for item in items])
    return copied


def plain_rows(rows: list[TimelineRow]) -> list[TimelineRow]:
    """Untracked copies of ``rows`` to change and assign back. A row's own fields are copied
    (its lists too); what they hold (strings, ``FileRow``) is shared, as nothing changes it
    in place. A whole-row ``deepcopy`` did the same at several times the cost, for every row
    of a run at each of its steps."""
    return [_plain(row) for row in rows]


def timeline_row(item: TimelineItem) -> TimelineRow:
    """One service ``TimelineItem`` as a render-ready row."""
    row = TimelineRow(
        key=item.key,
        kind=item.kind,
        seq=item.seq,
        session_number=item.session_number or 1,
        role=item.role,
        content=item.content,
        model=item.model,
        usage=item.usage,
        replaced=item.replaced,
        reply_end=item.reply_end,
        queued=item.queued,
        stopped=item.stopped,
        incomplete=item.incomplete,
        resetting=item.resetting,
    )
    match item.kind:
        case "message":
            row.time_label = relative_time(item.created_at)
            row.time_title = exact_time(item.created_at)
        case "marker":
            edit = -1 if item.edit is None else item.edit
            row.marker = [
                MarkerPart(marker_event=item.marker_event, edit=edit, problem=item.problem)
            ]
        case "tool":
            row.tool = [
                ToolCallPart(
                    tool_name=item.tool_name,
                    summary=item.summary,
                    tool_result=item.tool_result,
                    tool_failed=item.tool_failed,
                    simulated=item.simulated,
                )
            ]
        case "divider":
            handoff = item.handoff or {}
            header = (
                "Resetting context…"
                if item.resetting and not handoff
                else divider_header(item, handoff)
            )
            card = [handoff_card(item, handoff)] if handoff else []
            row.divider = [
                DividerPart(
                    trigger=item.trigger,
                    header=header,
                    created_iso=iso_time(item.created_at),
                    card=card,
                )
            ]
    return row


def resetting_row(session_number: int) -> TimelineRow:
    """The placeholder divider shown from a reset's start until it completes or fails."""
    return TimelineRow(
        key=f"resetting-{session_number}",
        kind="divider",
        session_number=session_number + 1,
        divider=[DividerPart(header="Resetting context…")],
        resetting=True,
    )


def upsert(rows: list[TimelineRow], row: TimelineRow) -> list[TimelineRow]:
    """Replace the row with the same key or append it.

    A delivered user message replaces the queued row it came from (both carry the pending
    id as key) and moves to the end, where it was delivered: after a reset's divider when it
    waited for the reset. Without a key match, the oldest queued row with the same text is
    the one being delivered.
    """
    for index, existing in enumerate(rows):
        if existing.key == row.key:
            if existing.queued and not row.queued:
                return [*rows[:index], *rows[index + 1 :], row]
            return [*rows[:index], row, *rows[index + 1 :]]
    if row.kind == "message" and row.role == "user" and not row.queued:
        for index, existing in enumerate(rows):
            if existing.queued and existing.content == row.content:
                return [*rows[:index], *rows[index + 1 :], row]
    return [*rows, row]
