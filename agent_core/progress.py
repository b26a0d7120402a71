"""A one-line progress bar for long command-line runs, drawn only on a terminal.

When the stream is not a TTY (a pipe, a file, CI logs) nothing is written, so redirected
output stays exactly what the command prints on stdout.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

__all__ = ["ProgressBar"]


class ProgressBar:
    """``update(done)`` redraws ``[#####     ]  41%  1330/3240 messages`` in place.

    Redraws at most every ``interval`` seconds (and always at the end); ``close()`` ends the
    line. ``clock`` is injectable so tests need not sleep.
    """

    def __init__(self, stream: TextIO, total: int, *, label: str = "messages", width: int = 30,
                 interval: float = 0.1, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream, self.total, self.label, self.width = stream, max(total, 0), label, width
        self.interval, self.clock = interval, clock
        isatty = getattr(stream, "isatty", None)
        self.enabled = bool(isatty and isatty())
        self._last_draw: float | None = None
        self._drawn = False

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        now = self.clock()
        finished = done >= self.total
        if not finished and self._last_draw is not None and now - self._last_draw < self.interval:
            return
        self._last_draw = now
        fraction = min(done / self.total, 1.0) if self.total else 1.0
        filled = round(fraction * self.width)
        bar = "#" * filled + " " * (self.width - filled)
        self.stream.write(f"\r[{bar}] {fraction:4.0%}  {done}/{self.total} {self.label}")
        self.stream.flush()
        self._drawn = True

    def clear(self) -> None:
        """Erase the bar (before other output reaches the terminal); the next update redraws."""
        if self.enabled and self._drawn:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self._drawn, self._last_draw = False, None

    def close(self) -> None:
        """End the bar's line so what follows starts on a fresh one."""
        if self.enabled and self._drawn:
            self.stream.write("\n")
            self.stream.flush()
