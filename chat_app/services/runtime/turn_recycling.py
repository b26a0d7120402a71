"""When the turn process's child is replaced by a fresh one: the idle replacement policy.

A child that ran many turns holds memory it no longer uses: Python's small-object allocator
keeps a 1 MiB arena as long as one live object sits in it, so a busy hour leaves the child
tens of MB larger than once it had loaded although few objects live (about 90 MB after
100 chats of three messages). Once it has run many runs, no run has gone on in it for a few
seconds and it holds more than a set amount over what it held once loaded (its ``Loaded``
frame), :meth:`Recycling.due` says so; the turn process then starts a fresh child and tells
the old one to end (its socket closed) when no run of it is left: the memory goes back to the
system, and a chat that comes back meets a child whose imports are done.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Recycling", "resident_bytes"]


def resident_bytes(pid: int) -> int | None:
    """The memory process ``pid`` holds now (None where /proc cannot say)."""
    try:
        with open(f"/proc/{pid}/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


@dataclass(frozen=True)
class Recycling:
    """When an idle child is replaced by a fresh one (``Settings.turn_process_recycle_mb``
    and ``turn_process_idle``): it has run ``runs`` runs or more, has run nothing for
    ``idle`` seconds, and holds ``growth`` bytes more than when it had loaded (its
    ``Loaded`` frame). ``growth`` 0 never replaces one. ``measure`` reads what a process
    holds (its pid; None where it cannot say)."""

    growth: int = 64 * 2**20
    idle: float = 5.0
    runs: int = 20
    measure: Callable[[int], int | None] = resident_bytes

    @property
    def enabled(self) -> bool:
        """Whether this policy ever replaces a child."""
        return self.growth > 0

    @property
    def poll_interval(self) -> float:
        """How often (seconds) the turn process asks :meth:`due`: often enough to see an
        idle spell of ``idle`` seconds."""
        return min(1.0, self.idle / 2)

    def due(self, *, pid: int, runs: int, idle_for: float, loaded: int | None) -> int | None:
        """How many bytes the child ``pid`` grew by since it had loaded (``loaded``: what it
        held then, None while unknown) when it is due for replacement, having run ``runs``
        runs and nothing for ``idle_for`` seconds; None to keep it. What it holds is read
        only once every other condition is met."""
        if idle_for < self.idle or loaded is None or runs < self.runs:
            return None
        held = self.measure(pid)
        if held is None or held - loaded < self.growth:
            return None
        return held - loaded
