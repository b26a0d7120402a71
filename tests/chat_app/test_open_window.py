"""The rows a chat opens with: its newest rows up to a byte budget, so a thread of rich rows
(long tool outputs, Markdown) opens with fewer of them and a thread of plain rows whole."""

from __future__ import annotations

import dataclasses
import json

from chat_app.states.chat import OPEN_BYTES, OPEN_MIN_ROWS, WINDOW, _open_window
from chat_app.states.rows import TimelineRow, ToolCallPart


def _size(rows: list[TimelineRow]) -> int:
    return sum(
        len(json.dumps(dataclasses.asdict(row), separators=(",", ":"), default=str)) for row in rows
    )


def test_a_window_of_plain_rows_opens_whole() -> None:
    rows = [
        TimelineRow(key=f"m{n}", seq=n, role="user", content=f"message {n}") for n in range(WINDOW)
    ]
    assert _open_window(rows) == rows


def test_rich_rows_open_with_the_newest_that_fit_the_budget() -> None:
    output = "\n".join(f"tests/test_{k}.py::test_case PASSED [{k * 8:3d}%]" for k in range(12))
    rows = [
        TimelineRow(
            key=f"t{n}",
            kind="tool",
            seq=n,
            tool=[ToolCallPart(tool_name="run_command", summary="pytest", tool_result=output)],
        )
        for n in range(WINDOW)
    ]
    opened = _open_window(rows)
    assert OPEN_MIN_ROWS <= len(opened) < len(rows)
    assert opened == rows[-len(opened) :]  # the newest, in order
    assert _size(opened) <= OPEN_BYTES < _size(rows[-len(opened) - 1 :])


def test_a_few_huge_rows_still_open_with_the_minimum() -> None:
    rows = [TimelineRow(key=f"m{n}", seq=n, content="x" * OPEN_BYTES) for n in range(WINDOW)]
    assert _open_window(rows) == rows[-OPEN_MIN_ROWS:]
