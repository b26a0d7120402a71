"""A divider's header and handoff card: what a session's start says about the reset (or the
import) that opened it and the handoff it started from."""

from __future__ import annotations

import base64
import dataclasses
from collections.abc import Mapping
from typing import Any

from agent_core.handoff import handoff_state
from chat_app.services.presentation.views import TimelineItem
from chat_app.states.rows.times import relative_time

__all__ = ["Handoff", "FileRow", "HandoffCard", "handoff_card", "checks_line", "divider_header"]

#: A stored handoff as a divider carries it: Baton's artifact as JSON, or an imported
#: agent's own summary (``imported_by``, ``tokens_before``…); read by key, never trusted.
Handoff = Mapping[str, Any]


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


def _strings(value: object) -> list[str]:
    if not value:
        return []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list | tuple):
        return []
    return [str(v) for v in value if str(v).strip()]


def _files(value: object) -> list[FileRow]:
    """files_modified holds ``{path, verified}`` dicts or bare paths; show both the same way."""
    rows = []
    for entry in value if isinstance(value, list | tuple) else []:
        if isinstance(entry, dict):
            path = str(entry.get("path") or "")
            if path:
                rows.append(FileRow(path=path, verified=bool(entry.get("verified"))))
        elif str(entry).strip():
            rows.append(FileRow(path=str(entry), verified=False))
    return rows


def checks_line(value: object) -> str:
    """The check in one line: ``files 16/17 (missing: b.py) · requests 9/9 (3 by reference)``;
    kinds with nothing to check are left out."""
    parts = []
    for check in value if isinstance(value, list | tuple) else []:
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


def divider_header(item: TimelineItem, handoff: Handoff) -> str:
    """ "Session 3 started · 5 min ago · auto reset at 82% · <model>" for a divider."""
    parts = [f"Session {item.session_number} started"]
    when = relative_time(item.created_at)
    if when:
        parts.append(when)
    trigger = item.trigger or handoff.get("trigger") or ""
    if handoff.get("imported_by"):  # the original agent's own compaction, in an import
        return " · ".join([*parts, _imported_label(handoff)])
    utilization = item.utilization
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
    model = item.model or handoff.get("model") or ""
    if model:
        parts.append(model)
    return " · ".join(parts)


def _imported_label(handoff: Handoff) -> str:
    label = f"{handoff['imported_by']} compacted"
    if handoff.get("compaction_trigger") in ("auto", "manual"):
        label += " (auto)" if handoff["compaction_trigger"] == "auto" else " (/compact)"
    before, after = handoff.get("tokens_before"), handoff.get("tokens_after")
    if before is not None:
        label += f" at {int(before):,} tokens"
        if after is not None:
            label += f" → {int(after):,}"
    return label


def handoff_card(item: TimelineItem, handoff: Handoff) -> HandoffCard:
    """The handoff ``item`` (a divider) started from, as its card."""
    markdown = item.handoff_markdown
    imported_by = handoff.get("imported_by")
    return HandoffCard(
        card_title=f"Summary by {imported_by}" if imported_by else "Handoff",
        preview=str(
            item.handoff_preview
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
        if imported_by
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
        handoff_filename=item.handoff_filename or f"HANDOFF-{item.session_number}.md",
    )
