"""One run's engine events (``agent_core.Event``) turned into the page's events
(:data:`ui_events.UiEvent`: rows, dividers, chips, the meter): the one place that matches on
what the engine said. It reads nothing: the thread's sessions are handed to it, and a
reset's event carries the session it opened."""

from __future__ import annotations

from collections.abc import Iterable

from agent_core import Event, SessionRecord, StoredMessage
from agent_core.events import (
    ErrorEvent,
    MarkerEvent,
    MessageEvent,
    QueuedEvent,
    ResetComplete,
    UtilizationEvent,
)
from chat_app.services.presentation.run_labels import RunLabeller
from chat_app.services.presentation.timeline import RowFolder, anchor, divider_item
from chat_app.services.presentation.ui_events import (
    ItemShown,
    MarkerShown,
    MeterShown,
    QueuedShown,
    Refused,
    SessionOpened,
    UiEvent,
)
from chat_app.services.presentation.views import MeterView, SessionChip, TimelineItem

__all__ = ["Translator", "FIRST_SEQ"]

FIRST_SEQ = 1  # the seq of a thread's first stored row (``thread.next_seq`` starts there)


class Translator:
    """Turns engine events into the page's events for one run of a thread with ``sessions``
    (read by the caller before the run, with its other reads)."""

    def __init__(self, sessions: Iterable[SessionRecord], assistant_label: str):
        self.label = assistant_label
        self.sessions = {s.id: s for s in sessions}
        self.folder = RowFolder({sid: s.number for sid, s in self.sessions.items()})
        self.labeller = RunLabeller()

    def translate(self, event: Event) -> list[UiEvent]:
        match event:
            case MessageEvent(row=row):
                return [ItemShown(item=self._labelled(i)) for i in self._rows(row)]
            case ResetComplete():
                return self._reset(event)
            case MarkerEvent():
                item = TimelineItem(
                    key=event.marker_id or f"{event.type}-{id(event)}",
                    kind="marker",
                    role="event",
                    content=event.message,
                    session_number=event.session_number,
                    marker_event=event.marker_event or event.type,
                    edit=event.edit,
                )
                return [MarkerShown.of(event, item)]
            case UtilizationEvent():
                meter = MeterView(
                    tokens=event.tokens,
                    window=event.window,
                    fraction=event.fraction,
                    basis=event.basis,
                    compact_threshold=event.compact_threshold,
                    reset_threshold=event.reset_threshold,
                )
                return [MeterShown(meter=meter)]
            case QueuedEvent():
                item = TimelineItem(
                    key=event.pending_id,
                    kind="message",
                    role="user",
                    content=event.content,
                    queued=True,
                )
                return [QueuedShown(item=item)]
            case ErrorEvent(message=message):
                return [Refused(message=message)]
            case _:
                return [event]

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

    def _reset(self, event: ResetComplete) -> list[UiEvent]:
        """A reset's completion: the new session's divider and chip, then the messages
        delivered into it as rows (its other phases go to the page as they are)."""
        self.labeller.named = ""  # the new session's first reply names its model
        # The engine's event carries the session it opened: nothing is read back.
        new = event.session
        self.sessions[new.id] = new
        self.folder.session_numbers[new.id] = new.number
        delivered = event.delivered
        first_seq = min((row.seq for row in delivered), default=0)
        number = event.session_number
        chip = SessionChip(
            number=number, label=f"Session {number} ← current", anchor=anchor(number), current=True
        )
        opened = SessionOpened(
            session_number=number, divider=divider_item(new, first_seq), chip=chip
        )
        return [
            opened,
            *(ItemShown(item=self._labelled(i)) for row in delivered for i in self.folder.add(row)),
        ]
