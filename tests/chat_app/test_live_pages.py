"""The live pages: a finished step changes one small page, whatever the turn's length."""

from __future__ import annotations

from chat_app.states.live_pages import PAGE_ROWS, PAGES, live_layout
from chat_app.states.rows import TimelineRow


def _rows(count: int) -> list[TimelineRow]:
    return [TimelineRow(key=f"r{n}", seq=n + 1) for n in range(count)]


def _changed(before, after) -> list[int]:
    return [index for index, (old, new) in enumerate(zip(before.slots, after.slots, strict=True))
            if old != new]


def test_each_finished_row_changes_only_the_page_it_lands_on():
    for count in range(1, 3 * PAGES * PAGE_ROWS):
        before, after = live_layout(_rows(count - 1)), live_layout(_rows(count))
        changed = _changed(before, after)
        assert len(changed) == 1, count
        assert len(after.slots[changed[0]]) <= PAGE_ROWS


def test_the_newest_pages_are_shown_in_order_and_the_oldest_leave():
    rows = _rows(PAGES * PAGE_ROWS + 1)
    layout = live_layout(rows)
    assert layout.hidden == PAGE_ROWS
    assert layout.pages == list(range(1, PAGES + 1))
    shown = [row for page in layout.pages for row in layout.slots[page % PAGES]]
    assert shown == rows[PAGE_ROWS:]


def test_no_rows_no_pages():
    layout = live_layout([])
    assert layout.pages == [] and layout.hidden == 0 and all(not slot for slot in layout.slots)
