"""The session chips above the timeline, and the anchors they jump to: the first row of each
session on the page."""

from __future__ import annotations

import dataclasses

from chat_app.services.presentation.views import SessionChip
from chat_app.states.rows.timeline_rows import TimelineRow

__all__ = ["ChipRow", "chip_row", "with_anchors", "anchors_for_tail", "with_new_session"]


@dataclasses.dataclass
class ChipRow:
    number: int = 1
    label: str = ""
    anchor: str = ""
    current: bool = False
    loaded: bool = True


def chip_row(chip: SessionChip) -> ChipRow:
    return ChipRow(
        number=chip.number,
        # The "← current" mark is drawn from ``current``, so it follows live resets.
        label=f"Session {chip.number}",
        anchor=chip.anchor or f"session-{chip.number}",
        current=chip.current,
        loaded=chip.loaded,
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
