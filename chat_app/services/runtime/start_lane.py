"""The start lane: a turn's blocking calls before its first words get threads of their own.

Every store call of a run leaves the event loop through ``asyncio.to_thread``, onto the
loop's default executor, a first-come queue. With many chats mid-turn that queue is long,
and a new message's first words waited behind the steps of every other turn: each of the
half-dozen calls before a turn's first model call queued again. The engine marks a run as
starting (``agent_core.begin_start`` until its first output; ``in_start_lane`` tells);
:class:`LaneExecutor` sends the calls made under that mark to a second, separate pool. The
rest of a turn keeps the whole main pool.

``bench.lanes`` measures it side by side: with 24 chats mid-turn on SQLite a new chat's
first words took a median 647 ms (p95 1052 ms) on asyncio's executor and 141 ms (405 ms)
with the lane. Installed for the worker's and the turn process's event loops when
``BATON_START_LANE`` is on (the default; :func:`chat_app.db.settings.start_lane_enabled`).
"""

from __future__ import annotations

import asyncio
import os
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from agent_core.runtime import in_start_lane
from chat_app.db.settings import start_lane_enabled

__all__ = ["LaneExecutor", "install_start_lane"]


class LaneExecutor(ThreadPoolExecutor):
    """The main pool, plus a start lane for calls submitted while the calling run starts."""

    def __init__(self, max_workers: int | None = None, start_workers: int = 8) -> None:
        super().__init__(
            max_workers or min(32, (os.cpu_count() or 1) + 4), thread_name_prefix="baton-work"
        )
        # Sized for the starts waiting at once (one call each at a time), not for the CPU:
        # a call that blocks (a lock held elsewhere) must not hold up every start.
        self._starts = ThreadPoolExecutor(start_workers, thread_name_prefix="baton-start")

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future:
        if in_start_lane():
            return self._starts.submit(fn, *args, **kwargs)
        return super().submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._starts.shutdown(wait, cancel_futures=cancel_futures)
        super().shutdown(wait, cancel_futures=cancel_futures)


def install_start_lane(loop: asyncio.AbstractEventLoop) -> bool:
    """Give ``loop`` a :class:`LaneExecutor` as its default executor, unless the setting
    turns the lane off; whether it did."""
    if not start_lane_enabled():
        return False
    loop.set_default_executor(LaneExecutor())
    return True
