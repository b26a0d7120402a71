"""The progress bar draws on a terminal only, and not more often than it is asked to."""

from __future__ import annotations

import io

from agent_core.progress import ProgressBar


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_a_bar_that_ends_full_on_its_own_line() -> None:
    stream = Terminal()
    bar = ProgressBar(stream, 4, interval=0)
    for done in range(1, 5):
        bar.update(done)
    bar.close()
    text = stream.getvalue()
    assert text.count("\r[") == 4
    assert text.endswith("100%  4/4 messages\n")


def test_a_pipe_gets_nothing() -> None:
    stream = io.StringIO()
    bar = ProgressBar(stream, 4, interval=0)
    for done in range(1, 5):
        bar.update(done)
    bar.close()
    assert stream.getvalue() == ""


def test_redraws_are_throttled_but_the_last_one_always_shows() -> None:
    stream, now = Terminal(), [0.0]
    bar = ProgressBar(stream, 100, interval=1.0, clock=lambda: now[0])
    for done in range(1, 101):
        now[0] += 0.05
        bar.update(done)
    draws = stream.getvalue().count("\r[")
    assert 4 <= draws <= 7  # every ~20 updates at 0.05 s each, plus the final one
    assert stream.getvalue().endswith("100/100 messages")


def test_clear_erases_the_bar_and_the_next_update_redraws_at_once() -> None:
    stream, now = Terminal(), [0.0]
    bar = ProgressBar(stream, 10, interval=10.0, clock=lambda: now[0])
    bar.update(1)
    bar.clear()
    bar.update(2)
    assert stream.getvalue().endswith("\r\033[K\r[" + "#" * 6 + " " * 24 + "]  20%  2/10 messages")
