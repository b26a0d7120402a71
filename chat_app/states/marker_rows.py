"""Which timeline marker offers Undo, and the originals a marker shows (pure functions).

Only the newest context edit of the newest session can be undone, or the ``/handoff`` that
opened it, and only while the model has not answered since (``agent_core.strategies._undo``
decides for real when the button is pressed); the timeline shows the button on that one
row, and says so when the agent has answered since.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from agent_core.strategies import UNDOABLE_EVENTS
from chat_app.states.rows import MarkerPart, TimelineRow

__all__ = ["EDIT_EVENTS", "UndoTarget", "OriginalRow", "undo_target", "original_row"]

#: Marker events that stand for a context edit of their session (``meta.edit``).
EDIT_EVENTS = ("compaction", "masking", "todo_compressed")


@dataclasses.dataclass
class UndoTarget:
    key: str = ""
    """The marker row that offers Undo; empty: none."""
    blocked: str = ""
    """Why that undo can no longer be done (the button is then disabled and says so)."""


@dataclasses.dataclass
class OriginalRow:
    key: str = ""
    who: str = ""
    content: str = ""


def _note(row: TimelineRow) -> MarkerPart:
    """A marker row's note (an empty one for any other row)."""
    return row.marker[0] if row.marker else MarkerPart()


def _undoable(row: TimelineRow) -> bool:
    if row.kind == "divider":
        return bool(row.divider) and row.divider[0].trigger == "manual"
    return _note(row).marker_event in UNDOABLE_EVENTS


def undo_target(rows: Iterable[TimelineRow]) -> UndoTarget:
    """The row that offers Undo: the newest session's newest edit marker when it is a
    compaction or mask not undone yet, or, before any edit, the divider of a ``/handoff``
    that opened it; ``blocked`` when the model has answered after it."""
    rows = [row for row in rows if not row.resetting]
    if not rows:
        return UndoTarget()
    current = max(row.session_number for row in rows)
    latest: TimelineRow | None = None
    answered = False
    for row in rows:
        if row.session_number != current:
            continue
        note = _note(row)
        opens_or_edits = row.kind == "divider" or (
            row.kind == "marker" and note.marker_event in EDIT_EVENTS and note.edit >= 0
        )
        if opens_or_edits:
            latest, answered = row, False
        elif row.kind == "marker" and note.marker_event == "undo":
            if latest is not None and latest.kind == "marker" and note.edit == _note(latest).edit:
                latest = None
        elif latest is not None and row.role == "assistant" and not row.queued:
            answered = True
        elif latest is not None and row.kind == "tool":
            answered = True  # a tool call is a model reply too
    if latest is None or not _undoable(latest):
        return UndoTarget()
    blocked = "The agent has answered since; it can no longer be undone." if answered else ""
    return UndoTarget(key=latest.key, blocked=blocked)


def original_row(item: Any) -> OriginalRow:
    data = item.model_dump() if hasattr(item, "model_dump") else dict(item)
    return OriginalRow(key=str(data["key"]), who=str(data["who"]), content=str(data["content"]))
