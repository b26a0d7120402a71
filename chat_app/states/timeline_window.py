"""The chat page's window on a long timeline: reading back (earlier rows), forward again
(later rows, after a jump), and the jumps to a session's start or to one message (a search
hit). The page never holds the whole thread: at most ``MAX_ROWS`` rows, the far end
dropped and loaded again when the reader scrolls back to it. A half of ``ChatState``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import reflex as rx

from chat_app.root import root
from chat_app.services.conversation import threads as thread_service
from chat_app.services.presentation.views import TimelineView
from chat_app.states import scripts
from chat_app.states.jump_script import scroll_to_message
from chat_app.states.rows import ChipRow, TimelineRow, timeline_row, upsert

__all__ = ["MAX_ROWS", "WINDOW", "TimelineWindow"]

WINDOW = 100  # timeline rows loaded at a time; others load on demand
MAX_ROWS = 3 * WINDOW  # rows kept in the page at most; the far end is dropped beyond it


class TimelineWindow(rx.State, mixin=True):
    """Which stored rows the page holds, moved by scrolling and jumps (see the module)."""

    if TYPE_CHECKING:  # what the rest of ChatState gives this half
        thread_key: str
        rows: list[TimelineRow]
        chips: list[ChipRow]
        has_earlier: bool
        earliest_seq: int
        has_later: bool
        _last_seq: int
        _live: list[TimelineRow]

        def _owner(self) -> str: ...
        def _set_rows(self, rows: list[TimelineRow]) -> None: ...
        def _live_rows(self) -> list[TimelineRow]: ...
        def _show(self, view: TimelineView) -> None: ...

    @rx.event
    def load_earlier(self) -> rx.event.EventSpec | None:
        if not self.has_earlier:
            return None
        view = thread_service.load_timeline(
            root(), self._owner(), self.thread_key, before_seq=self.earliest_seq, limit=WINDOW
        )
        if view is None:
            return None
        self.has_earlier = view.has_earlier
        rows = [timeline_row(item) for item in view.items] + self.rows
        if len(rows) > MAX_ROWS:  # the page stays light: the newest end goes, to load again
            rows, self.has_later = rows[:MAX_ROWS], True
        self._set_rows(rows if self.has_later else rows + self._live_rows())
        return scripts.restore_place()

    @rx.event
    def load_later(self):
        """Scrolling down a window that ends before the newest rows: the next rows."""
        if not self.has_later:
            return None
        view = thread_service.load_window_at(
            root(), self._owner(), self.thread_key, after_seq=self._last_seq, limit=WINDOW
        )
        if view is None:
            return None
        rows = self.rows + [timeline_row(item) for item in view.items]
        if view.has_later:
            self._last_seq = view.last_seq
        else:  # the newest rows: this run's rows join the window, and the reader stays put
            for row in self._live:
                rows = upsert(rows, row)
            self.has_later = False
        if len(rows) > MAX_ROWS:
            rows, self.has_earlier = rows[-MAX_ROWS:], True
        self._set_rows(rows)
        return None

    def _show_newest(self):
        view = thread_service.load_timeline(root(), self._owner(), self.thread_key)
        if view is None:
            return None
        live = self._live_rows()
        self._show(view)
        rows = self.rows
        for row in live:  # this run's rows not yet in the newest window
            rows = upsert(rows, row)
        self._set_rows(rows)
        return scripts.scroll_to_bottom(force=True)

    @rx.event
    def jump_to_session(self, number: int):
        chip = next((c for c in self.chips if c.number == number), None)
        if chip is None:
            return None
        if not chip.loaded:
            if chip.current:
                self._show_newest()
            else:
                # Only the rows from that session's start: the page never holds the whole
                # thread, however long (the newest rows load again by scrolling down).
                view = thread_service.load_window_at(
                    root(), self._owner(), self.thread_key, session_number=number, limit=WINDOW
                )
                if view is None or not view.items:
                    return None
                self.has_earlier, self.has_later = view.has_earlier, view.has_later
                self._last_seq = view.last_seq
                rows = [timeline_row(item) for item in view.items]
                self._set_rows(rows if self.has_later else rows + self._live_rows())
        return scripts.scroll_to_anchor(chip.anchor)

    @rx.event
    def jump_to_message(self, seq: int):
        """Show stored row ``seq`` (a search hit): in place when loaded, else the window
        that reads forward from just before it."""
        seq = int(seq)
        if not any(row.seq == seq for row in [*self.rows, *self._live_rows()]):
            view = thread_service.load_window_at(
                root(), self._owner(), self.thread_key, after_seq=max(seq - 3, 0), limit=WINDOW
            )
            if view is None or all(item.seq != seq for item in view.items):
                return rx.toast.error("That message is not in this chat.")
            self.has_earlier, self.has_later = view.has_earlier, view.has_later
            self._last_seq = view.last_seq
            rows = [timeline_row(item) for item in view.items]
            self._set_rows(rows if self.has_later else rows + self._live_rows())
        return scroll_to_message(seq)
