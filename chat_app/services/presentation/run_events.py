"""One run's engine events turned into the UI's events (items, dividers, chips, meter)."""

from __future__ import annotations

from typing import Any

from agent_core import SessionRecord, StoredMessage
from chat_app.services.presentation.run_labels import RunLabeller
from chat_app.services.presentation.timeline import RowFolder, anchor, divider_item
from chat_app.services.presentation.views import MeterView, SessionChip, TimelineItem
from chat_app.services.runtime import runtime

__all__ = ["Translator", "expand", "FIRST_SEQ"]

FIRST_SEQ = 1  # the seq of a thread's first stored row (``thread.next_seq`` starts there)


class Translator:
    """Turns engine events into UI events for one run."""

    def __init__(self, thread_id: str, assistant_label: str):
        self.thread_id = thread_id
        self.label = assistant_label
        the_store = runtime.store()
        self.sessions = {s.id: s for s in the_store.sessions(thread_id)}
        self.folder = RowFolder({sid: s.number for sid, s in self.sessions.items()})
        self.meter_base: dict[str, Any] = {}
        self.labeller = RunLabeller()

    def translate(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        kind, data = event.get("type"), event.get("data") or {}
        if kind == "message":
            row = StoredMessage.model_validate(data)
            items = self.folder.add(row)
            opening = self.sessions.get(row.session_id)
            if row.seq == FIRST_SEQ and opening is not None:
                # The thread's first row opens session 1: shown with its divider, as a
                # reload shows it.
                items = [divider_item(opening, row.seq), *items]
            return [{"type": "item", "data": self._labelled(i).model_dump(mode="json")}
                    for i in items]
        if kind == "context_reset":
            return [self._reset(data)]
        if kind in ("compaction", "todo_compressed", "masking"):
            # keyed by the stored marker row, as a reload keys it (undo and expand name it)
            item = TimelineItem(key=data.get("marker_id") or f"{kind}-{id(event)}", kind="marker",
                                role="event", content=data.get("message", ""),
                                session_number=data.get("session_number", 1),
                                marker_event=data.get("marker_event") or kind,
                                edit=data.get("edit"))
            return [{"type": kind, "data": {**data, "item": item.model_dump(mode="json")}}]
        if kind == "utilization":
            meter = MeterView(tokens=data["tokens"], window=data["window"], fraction=data["fraction"],
                              basis=data.get("basis", "exact"),
                              compact_threshold=data.get("compact_threshold", 0.5),
                              reset_threshold=data.get("reset_threshold", 0.8), **self.meter_base)
            return [{"type": "utilization", "data": meter.model_dump(mode="json")}]
        if kind == "queued":
            item = TimelineItem(key=data.get("pending_id", ""), kind="message", role="user",
                                content=data.get("content", ""), queued=True)
            return [{"type": "queued", "data": item.model_dump(mode="json")}]
        return [event]

    def _labelled(self, item: TimelineItem) -> TimelineItem:
        if item.role == "assistant" or item.kind == "tool":
            item = item.model_copy(update={"model": self.label})
        return self.labeller.apply(item)  # named once per run, not under every reply

    def _reset(self, data: dict[str, Any]) -> dict[str, Any]:
        if data.get("event") != "reset_complete":
            return {"type": "context_reset", "data": data}
        self.labeller.named = ""  # the new session's first reply names its model
        # The engine's event carries the session it opened: nothing is read back.
        new = SessionRecord.model_validate(data["session"]) if data.get("session") else None
        if new is not None:
            self.sessions[new.id] = new
            self.folder.session_numbers[new.id] = new.number
        delivered = data.get("delivered") or []
        first_seq = min((d["seq"] for d in delivered), default=0)
        divider = divider_item(new, first_seq) if new else None
        chip = SessionChip(number=data["session_number"], label=f"Session {data['session_number']} ← current",
                           anchor=anchor(data["session_number"]), current=True)
        return {"type": "context_reset", "data": {
            **{k: v for k, v in data.items() if k not in ("delivered", "session")},
            "divider": divider.model_dump(mode="json") if divider else None,
            "chip": chip.model_dump(mode="json"),
        }} | ({"followups": [self._labelled(i).model_dump(mode="json") for d in delivered
                             for i in self.folder.add(StoredMessage.model_validate(d))]} if delivered else {})


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
