"""The rows a running stream adds, held in a ring of small pages.

Reflex sends a changed var whole. Were this run's rows one list, each finished step would
send every row the run had produced so far, and a long turn would cost the square of its
length. Here the rows live in ``PAGES`` page vars of ``PAGE_ROWS`` rows each: row ``i`` of
the run is on page ``i // PAGE_ROWS``, held by var ``live_<page % PAGES>``, so a finished
step changes one small page, whatever the turn's length or the thread's. ``live_pages``
lists the pages shown, oldest first, by their absolute number (the key React reuses their
rows by); once the run fills more than ``PAGES`` pages, the oldest page leaves the page
(scrolling up loads it again from the store) and its var takes the new rows.

The full list of the run's rows stays on the server (``_live``), so updating a row already
shown (a tool call's result) or reading the run back works as before.
"""

from __future__ import annotations

import dataclasses

import reflex as rx

from chat_app.states.rows import TimelineRow, plain_rows, unwrapped

__all__ = ["PAGES", "PAGE_ROWS", "LivePages", "LiveLayout", "live_layout"]

PAGES = 50  # 100 rows: a long turn stays in the page whole, as a reload shows it
PAGE_ROWS = 2


@dataclasses.dataclass(frozen=True)
class LiveLayout:
    """Where each shown row goes: page var contents, the pages shown, the rows left out."""

    slots: list[list[TimelineRow]]
    pages: list[int]  # numbers of the pages shown (relative to the list), oldest first
    hidden: int  # rows at the start of the list no longer shown


def live_layout(
    rows: list[TimelineRow], *, pages: int = PAGES, per_page: int = PAGE_ROWS
) -> LiveLayout:
    """Spread ``rows`` over the ring: the last ``pages`` pages are shown (pure)."""
    count = -(-len(rows) // per_page)
    first = max(0, count - pages)
    slots: list[list[TimelineRow]] = [[] for _ in range(pages)]
    for page in range(first, count):
        slots[page % pages] = rows[page * per_page : (page + 1) * per_page]
    return LiveLayout(slots=slots, pages=list(range(first, count)), hidden=first * per_page)


class LivePages(rx.State, mixin=True):
    """The ring of page vars; ``ChatState`` writes it through ``_show_live``."""

    # live_0 ... live_<PAGES - 1>: one var per page (declared in a loop, all alike).
    for _page in range(PAGES):
        __annotations__[f"live_{_page}"] = list[TimelineRow]
        locals()[f"live_{_page}"] = []
    del _page
    live_pages: list[int] = []
    _live: list[TimelineRow] = []
    # The absolute number of _live's first page: whole rounds of hidden pages are dropped
    # from _live without renumbering (or re-sending) the pages shown.
    _live_base: int = 0

    def _live_rows(self) -> list[TimelineRow]:
        """This run's rows still shown (the ones before them were left out), untracked: to
        read, or to pass to a setter that copies them."""
        live = unwrapped(self._live)
        return list(live[live_layout(live).hidden :])

    def _show_live(self, rows: list[TimelineRow], *, copied: bool = False) -> int:
        """Make ``rows`` this run's rows; send only the pages that changed. Returns how many
        rows at the start are no longer shown. ``copied``: ``rows`` are already this call's
        own (``plain_rows``); otherwise they are copied, as rows the state holds are shared
        with its page vars and must not change in place."""
        if not copied:
            rows = plain_rows(rows)
        # What the page vars hold now: this method is their only writer, so they are the
        # layout of the rows it last kept. Comparing against that instead of reading each
        # var saves a tracked read (two proxies deep in a background event) of every page
        # var at every finished step of every chat.
        before = live_layout(unwrapped(self._live)).slots
        layout = live_layout(rows)
        rounds = layout.pages[0] // PAGES if layout.pages else 0
        if rounds:  # drop whole rounds: each remaining row keeps its page var
            rows = rows[rounds * PAGES * PAGE_ROWS :]
            self._live_base += rounds * PAGES
            layout = live_layout(rows)
        self._live = rows
        for index, slot in enumerate(layout.slots):
            if before[index] != slot:  # a whole round dropped keeps each row's var
                setattr(self, f"live_{index}", slot)
        shown = [self._live_base + page for page in layout.pages]
        if list(self.live_pages) != shown:
            self.live_pages = shown
        return layout.hidden + rounds * PAGES * PAGE_ROWS

    def _clear_live(self) -> None:
        self._show_live([])
        self._live_base = 0
