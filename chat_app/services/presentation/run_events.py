"""One run's engine events (``agent_core.Event``) turned into the UI's events (items,
dividers, chips, meter): the one place that matches on what the engine said. It reads
nothing: the thread's sessions are handed to it, and a reset's event carries the session
it opened."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agent_core import (
    ContextResetEvent,
    Event,
    MarkerEvent,
    MessageEvent,
    QueuedEvent,
    SessionRecord,
    StoredMessage,
    UtilizationEvent,
)
from chat_app.services.presentation.run_labels import RunLabeller
from chat_app.services.presentation.timeline import RowFolder, anchor, divider_item
from chat_app.services.presentation.views import MeterView, SessionChip, TimelineItem

__all__ = ["Translator", "expand", "FIRST_SEQ"]

FIRST_SEQ = 1  # the seq of a thread's first stored row (``thread.next_seq`` starts there)


class Translator:
    """Turns engine events into UI events for one run of a thread with ``sessions`` (read
    by the caller before the run, with its other reads)."""

    def __init__(self, sessions: Iterable[SessionRecord], assistant_label: str):
        self.label = assistant_label
        self.sessions = {s.id: s for s in sessions}
        self.folder = RowFolder({sid: s.number for sid, s in self.sessions.items()})
        self.meter_base: dict[str, Any] = {}
        self.labeller = RunLabeller()

    def translate(self, event: Event) -> list[dict[str, Any]]:
        match event:
            case MessageEvent(row=row):
                return [
                    {"type": "item", "data": self._labelled(i).model_dump(mode="json")}
                    for i in self._rows(row)
                ]
            case ContextResetEvent():
                return [self._reset(event)]
            case MarkerEvent():
                # keyed by the stored marker row, as a reload keys it (undo and expand name it)
                item = TimelineItem(
                    key=event.marker_id or f"{event.type}-{id(event)}",
                    kind="marker",
                    role="event",
                    content=event.message,
                    session_number=event.session_number,
                    marker_event=event.marker_event or event.type,
                    edit=event.edit,
                )
                wire = event.model_dump()
                return [{**wire, "data": {**wire["data"], "item": item.model_dump(mode="json")}}]
            case UtilizationEvent():
                meter = MeterView(
                    tokens=event.tokens,
                    window=event.window,
                    fraction=event.fraction,
                    basis=event.basis,
                    compact_threshold=event.compact_threshold,
                    reset_threshold=event.reset_threshold,
                    **self.meter_base,
                )
                return [{"type": "utilization", "data": meter.model_dump(mode="json")}]
            case QueuedEvent():
                item = TimelineItem(
                    key=event.pending_id,
                    kind="message",
                    role="user",
                    content=event.content,
                    queued=True,
                )
                return [{"type": "queued", "data": item.model_dump(mode="json")}]
            case _:
                return [event.model_dump()]

    def _rows(self, row: StoredMessage) -> list[TimelineItem]:
        items = self.folder.add(row)
        opening = self.sessions.get(row.session_id)
        if row.seq == FIRST_SEQ and opening is not None:
            # The thread's first row opens session 1: shown with its divider, as a reload
            # shows it.
            items = [divider_item(opening, row.seq), *items]
        return items

    def _labelled(self, item: TimelineItem) -> TimelineItem:
        if item.role == "assistant" or item.kind == "tool":
            item = item.model_copy(update={"model": self.label})
        return self.labeller.apply(item)  # named once per run, not under every reply

    def _reset(self, event: ContextResetEvent) -> dict[str, Any]:
        data = event.model_dump()["data"]
        if event.event != "reset_complete":
            return {"type": "context_reset", "data": data}
        self.labeller.named = ""  # the new session's first reply names its model
        # The engine's event carries the session it opened: nothing is read back.
        details = event.details
        new = SessionRecord.model_validate(details["session"]) if details.get("session") else None
        if new is not None:
            self.sessions[new.id] = new
            self.folder.session_numbers[new.id] = new.number
        delivered = details.get("delivered") or []
        first_seq = min((d["seq"] for d in delivered), default=0)
        divider = divider_item(new, first_seq) if new else None
        number = event.session_number
        chip = SessionChip(
            number=number, label=f"Session {number} ← current", anchor=anchor(number), current=True
        )
        return {
            "type": "context_reset",
            "data": {
                **{k: v for k, v in data.items() if k not in ("delivered", "session")},
                "divider": divider.model_dump(mode="json") if divider else None,
                "chip": chip.model_dump(mode="json"),
            },
        } | (
            {
                "followups": [
                    self._labelled(i).model_dump(mode="json")
                    for d in delivered
                    for i in self.folder.add(StoredMessage.model_validate(d))
                ]
            }
            if delivered
            else {}
        )


def expand(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A reset's delivered rows (``followups``) as ``item`` events after it."""
    out = []
    for event in events:
        followups = event.get("followups") if isinstance(event, dict) else None
        if followups is not None:
            event = {k: v for k, v in event.items() if k != "followups"}
        out.append(event)
        out.extend({"type": "item", "data": item} for item in followups or [])
    return out
