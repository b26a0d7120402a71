"""Render-ready rows: the service view models reshaped for Reflex components.

Reflex components cannot run Python on runtime data, so every label, anchor and list the
timeline shows is prepared here, once, when an item arrives. Pure functions, no I/O.
"""

from __future__ import annotations

import base64
import copy
import dataclasses
from datetime import UTC, datetime
from typing import Any

from agent_core.handoff import handoff_state

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


@dataclasses.dataclass
class FileRow:
    path: str = ""
    verified: bool = False


@dataclasses.dataclass
class HandoffCard:
    """A divider's handoff card. A row carries the fields of its own kind only, each kind's
    in a list of one (none on other rows): sent empty with every row, the fields of all kinds
    were most of a long chat's page load."""

    card_title: str = "Handoff"
    preview: str = ""
    completed_work: list[str] = dataclasses.field(default_factory=list)
    in_progress: list[str] = dataclasses.field(default_factory=list)
    remaining_tasks: list[str] = dataclasses.field(default_factory=list)
    key_decisions: list[str] = dataclasses.field(default_factory=list)
    files_modified: list[FileRow] = dataclasses.field(default_factory=list)
    state_summary: str = ""
    focus: str = ""
    goal: str = ""
    constraints: list[str] = dataclasses.field(default_factory=list)
    user_messages: list[str] = dataclasses.field(default_factory=list)
    next_step: str = ""
    errors_and_fixes: list[str] = dataclasses.field(default_factory=list)
    checks: str = ""
    # Where the model's handoff disagreed with the evidence (the evidence's items were added).
    disagreements: list[str] = dataclasses.field(default_factory=list)
    # The HANDOFF-n.md file as a data: URL (given a plain string, rx.download saves it as a
    # JSON string literal, not as Markdown).
    handoff_markdown: str = ""
    handoff_filename: str = ""


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
    ``todo_compressed``, ``undo``; see ``services.presentation.views.TimelineItem``), the position of the
    session's context edit it stands for (-1: none), and whether it reports a failure (an
    MCP server that did not start)."""

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


def unwrapped(value: Any) -> Any:
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


@dataclasses.dataclass
class ChipRow:
    number: int = 1
    label: str = ""
    anchor: str = ""
    current: bool = False
    loaded: bool = True


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
    level: str = "ok"  # ok | warn | high: colours the bar


@dataclasses.dataclass
class ThreadRow:
    id: str = ""
    title: str = ""
    updated_label: str = ""
    updated_iso: str = ""  # the browser keeps updated_label fresh from it
    session_count: int = 1
    model_label: str = ""


def _dump(value: Any) -> dict[str, Any]:
    """Accept a pydantic view or the dict it was dumped to."""
    if hasattr(value, "model_dump"):
        return value.model_dump()
    return dict(value)


def _as_datetime(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value
    if isinstance(value, str) and value:
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            return None
    return None


def relative_time(value: Any, now: datetime | None = None) -> str:
    """'just now', '3 min ago', '2 h ago', '4 days ago' (or '' when unknown)."""
    when = _as_datetime(value)
    if when is None:
        return ""
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    seconds = ((now or datetime.now(UTC)) - when).total_seconds()
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h ago"
    days = int(seconds // 86400)
    return f"{days} day{'s' if days != 1 else ''} ago"


def exact_time(value: Any) -> str:
    """'Tue 1 Dec 2026, 16:09:07 UTC' (or '' when unknown)."""
    when = _as_datetime(value)
    if when is None:
        return ""
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    when = when.astimezone(UTC)
    return f"{when:%a} {when.day} {when:%b %Y, %H:%M:%S} UTC"


def _iso(value: Any) -> str:
    """An aware ISO 8601 time for the browser ("" when unknown)."""
    when = _as_datetime(value)
    if when is None:
        return ""
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).isoformat()


def _strings(value: Any) -> list[str]:
    if not value:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value if str(v).strip()]


def _files(value: Any) -> list[FileRow]:
    """files_modified holds ``{path, verified}`` dicts or bare paths; show both the same way."""
    rows = []
    for entry in value or []:
        if isinstance(entry, dict):
            path = str(entry.get("path") or "")
            if path:
                rows.append(FileRow(path=path, verified=bool(entry.get("verified"))))
        elif str(entry).strip():
            rows.append(FileRow(path=str(entry), verified=False))
    return rows


def checks_line(value: Any) -> str:
    """The check in one line: ``files 16/17 (missing: b.py) · requests 9/9 (3 by reference)``;
    kinds with nothing to check are left out."""
    parts = []
    for check in value or []:
        if not (isinstance(check, dict) and check.get("total")):
            continue
        part = f"{check.get('kind')} {check.get('covered')}/{check.get('total')}"
        notes = []
        if check.get("referenced"):
            notes.append(f"{check['referenced']} by reference")
        if check.get("missing"):
            notes.append("missing: " + ", ".join(str(m) for m in check["missing"]))
        parts.append(part + (f" ({'; '.join(notes)})" if notes else ""))
    return " · ".join(parts)


_TRIGGER_LABELS = {"auto": "auto reset", "manual": "/handoff", "overflow": "overflow reset"}


def _clip_focus(focus: str, limit: int = 60) -> str:
    focus = " ".join(focus.split())
    return focus if len(focus) <= limit else focus[: limit - 1] + "…"


def _divider_header(item: dict[str, Any], handoff: dict[str, Any]) -> str:
    parts = [f"Session {item['session_number']} started"]
    when = relative_time(item.get("created_at"))
    if when:
        parts.append(when)
    trigger = item.get("trigger") or handoff.get("trigger") or ""
    if handoff.get("imported_by"):  # the original agent's own compaction, in an import
        return " · ".join([*parts, _imported_label(handoff)])
    utilization = item.get("utilization")
    if utilization is None:
        utilization = handoff.get("utilization")
    # The first session just starts; there is no reset to describe.
    if trigger not in ("", "start") or (trigger == "" and utilization is not None):
        label = _TRIGGER_LABELS.get(trigger, trigger or "reset")
        if utilization is not None:
            label += f" at {round(float(utilization) * 100)}%"
        if handoff.get("focus"):
            label += f", focus: {_clip_focus(str(handoff['focus']))}"
        parts.append(label)
    model = item.get("model") or handoff.get("model") or ""
    if model:
        parts.append(model)
    return " · ".join(parts)


def _imported_label(handoff: dict[str, Any]) -> str:
    label = f"{handoff['imported_by']} compacted"
    if handoff.get("compaction_trigger") in ("auto", "manual"):
        label += " (auto)" if handoff["compaction_trigger"] == "auto" else " (/compact)"
    before, after = handoff.get("tokens_before"), handoff.get("tokens_after")
    if before is not None:
        label += f" at {int(before):,} tokens"
        if after is not None:
            label += f" → {int(after):,}"
    return label


def timeline_row(item: Any) -> TimelineRow:
    """One service ``TimelineItem`` (model or dict) as a render-ready row."""
    data = _dump(item)
    handoff = data.get("handoff") or {}
    row = TimelineRow(
        key=str(data.get("key", "")),
        kind=str(data.get("kind", "message")),
        seq=int(data.get("seq") or 0),
        session_number=int(data.get("session_number") or 1),
        role=str(data.get("role") or ""),
        content=str(data.get("content") or ""),
        model=str(data.get("model") or ""),
        usage=str(data.get("usage") or ""),
        replaced=bool(data.get("replaced")),
        reply_end=bool(data.get("reply_end")),
        queued=bool(data.get("queued")),
        stopped=bool(data.get("stopped")),
        incomplete=bool(data.get("incomplete")),
        resetting=bool(data.get("resetting")),
    )
    if row.kind == "message":
        row.time_label = relative_time(data.get("created_at"))
        row.time_title = exact_time(data.get("created_at"))
    elif row.kind == "marker":
        row.marker = [
            MarkerPart(
                marker_event=str(data.get("marker_event") or ""),
                edit=data["edit"] if isinstance(data.get("edit"), int) else -1,
                problem=bool(data.get("problem")),
            )
        ]
    elif row.kind == "tool":
        row.tool = [
            ToolCallPart(
                tool_name=str(data.get("tool_name") or ""),
                summary=str(data.get("summary") or ""),
                tool_result=str(data.get("tool_result") or ""),
                tool_failed=bool(data.get("tool_failed")),
                simulated=bool(data.get("simulated")),
            )
        ]
    if row.kind != "divider":
        return row
    header = (
        "Resetting context…" if row.resetting and not handoff else _divider_header(data, handoff)
    )
    row.divider = [
        DividerPart(
            trigger=str(data.get("trigger") or ""),
            header=header,
            created_iso=_iso(data.get("created_at")),
            card=[handoff_card(data, handoff, row.session_number)] if handoff else [],
        )
    ]
    return row


def handoff_card(item: dict[str, Any], handoff: dict[str, Any], session_number: int) -> HandoffCard:
    """A divider's handoff (``item`` is its ``TimelineItem``) as its card."""
    markdown = str(item.get("handoff_markdown") or "")
    return HandoffCard(
        card_title=f"Summary by {handoff['imported_by']}"
        if handoff.get("imported_by")
        else "Handoff",
        preview=str(
            item.get("handoff_preview")
            or handoff.get("current_state_summary")
            or handoff.get("next_step")
            or next(iter(handoff.get("in_progress") or []), "")
            or handoff.get("goal")
            or ""
        ),
        completed_work=_strings(handoff.get("completed_work")),
        in_progress=_strings(handoff.get("in_progress")),
        remaining_tasks=_strings(handoff.get("remaining_tasks")),
        key_decisions=_strings(handoff.get("key_decisions")),
        files_modified=_files(handoff.get("files_modified")),
        # An agent's imported summary is its own; Baton's state is counted from the card's lists.
        state_summary=str(handoff.get("current_state_summary") or "")
        if handoff.get("imported_by")
        else handoff_state(handoff),
        focus=str(handoff.get("focus") or ""),
        goal=str(handoff.get("goal") or ""),
        constraints=_strings(handoff.get("constraints")),
        user_messages=_strings(handoff.get("user_messages")),
        next_step=str(handoff.get("next_step") or ""),
        errors_and_fixes=_strings(handoff.get("errors_and_fixes")),
        checks=checks_line(handoff.get("checks")),
        disagreements=_strings(handoff.get("disagreements")),
        handoff_markdown=(
            "data:text/markdown;charset=utf-8;base64,"
            + base64.b64encode(markdown.encode()).decode()
            if markdown
            else ""
        ),
        handoff_filename=str(item.get("handoff_filename") or f"HANDOFF-{session_number}.md"),
    )


def resetting_row(session_number: int) -> TimelineRow:
    """The placeholder divider shown from ``reset_starting`` until ``reset_complete``."""
    return TimelineRow(
        key=f"resetting-{session_number}",
        kind="divider",
        session_number=session_number + 1,
        divider=[DividerPart(header="Resetting context…")],
        resetting=True,
    )


def chip_row(chip: Any) -> ChipRow:
    data = _dump(chip)
    return ChipRow(
        number=int(data["number"]),
        # The "← current" mark is drawn from ``current``, so it follows live resets.
        label=f"Session {data['number']}",
        anchor=str(data.get("anchor") or f"session-{data['number']}"),
        current=bool(data.get("current")),
        loaded=bool(data.get("loaded", True)),
    )


def meter_bar(meter: Any, previous: MeterBar | None = None) -> MeterBar:
    """A ``MeterView`` (or a bare utilization event) as bar geometry and labels.

    Utilization events may carry only tokens/window/fraction/basis; the thresholds then
    stay as the previous bar had them.
    """
    data = _dump(meter)
    base = previous or MeterBar()
    tokens = int(data.get("tokens", base.tokens) or 0)
    window = int(data.get("window", base.window) or 1)
    fraction = data.get("fraction")
    fraction = tokens / window if fraction is None else float(fraction)
    compact = data.get("compact_threshold")
    reset = data.get("reset_threshold")
    compact_percent = base.compact_percent if compact is None else float(compact) * 100
    reset_percent = base.reset_percent if reset is None else float(reset) * 100
    effective = data.get("effective_strategy")
    show_compact = base.show_compact if effective is None else effective != "reset"
    strategy = data.get("strategy")
    # An explicit "compact" never resets; "auto" resolved to compact resets when
    # compaction cannot help, so both act then.
    show_reset = base.show_reset if strategy is None else strategy != "compact"
    acting = [
        *([f"compact at {compact_percent:.0f}%"] if show_compact else []),
        *([f"reset at {reset_percent:.0f}%"] if show_reset else []),
    ]
    approx = "" if data.get("basis", "exact") == "exact" else "~"
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
        title=" · ".join([f"{approx}{tokens:,} of {window:,} tokens", *acting]),
        compact_percent=compact_percent,
        reset_percent=reset_percent,
        show_compact=show_compact,
        show_reset=show_reset,
        level=level,
    )


def thread_row(summary: Any) -> ThreadRow:
    data = _dump(summary)
    return ThreadRow(
        id=str(data["id"]),
        title=str(data.get("title") or "Untitled"),
        updated_label=relative_time(data.get("updated_at")),
        updated_iso=_iso(data.get("updated_at")),
        session_count=int(data.get("session_count") or 1),
        model_label=str(data.get("model_label") or ""),
    )


def with_anchors(
    rows: list[TimelineRow], chips: list[ChipRow], *, from_start: bool
) -> tuple[list[TimelineRow], list[ChipRow]]:
    """Give the first row of each session its chip's anchor; mark chips whose anchor is loaded.

    A divider starts every session after the first, so it carries the anchor; session 1 has
    no divider, so its first row does, but only when the window reaches back to the start
    of the thread (``from_start``).
    """
    return anchors_for_tail(
        rows, chips, seen_sessions=set(), loaded_anchors=set(), from_start=from_start
    )


def anchors_for_tail(
    tail: list[TimelineRow],
    chips: list[ChipRow],
    *,
    seen_sessions: set[int],
    loaded_anchors: set[str],
    from_start: bool,
) -> tuple[list[TimelineRow], list[ChipRow]]:
    """:func:`with_anchors` for rows that follow rows already anchored (``seen_sessions``
    started there, ``loaded_anchors`` are on screen), leaving those rows untouched."""
    anchors = {chip.number: chip.anchor for chip in chips}
    seen = set(seen_sessions)
    for row in tail:
        row.anchor = ""
        if row.session_number in seen:
            continue
        starts_session = row.kind == "divider" or (row.session_number == 1 and from_start)
        if starts_session:
            seen.add(row.session_number)
            row.anchor = anchors.get(row.session_number, f"session-{row.session_number}")
    loaded = loaded_anchors | {row.anchor for row in tail if row.anchor}
    for chip in chips:
        chip.loaded = chip.anchor in loaded
    return tail, chips


def with_new_session(chips: list[ChipRow], chip: ChipRow) -> list[ChipRow]:
    """The chips after a live reset opened ``chip``'s session: it becomes the current one.

    A thread opened before its first reset may have had no chips at all, so any missing
    earlier session gets its chip too.
    """
    by_number = {c.number: dataclasses.replace(c, current=False) for c in chips}
    for number in range(1, chip.number):
        by_number.setdefault(
            number, ChipRow(number=number, label=f"Session {number}", anchor=f"session-{number}")
        )
    by_number[chip.number] = dataclasses.replace(chip, current=True)
    return [by_number[n] for n in sorted(by_number)]


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
