"""The cancel flags of the turns (and handoffs) this process runs, by thread.

A run takes its thread's flag when it starts and gives it back when it ends; a Stop sets it.
One per app (:class:`~chat_app.services.runtime.container.App`), never a module global.
"""

from __future__ import annotations

import asyncio

__all__ = ["Cancels"]


class Cancels:
    """The running threads' cancel flags."""

    def __init__(self) -> None:
        self._flags: dict[str, asyncio.Event] = {}

    def __len__(self) -> int:
        """How many threads have a run going here now."""
        return len(self._flags)

    def flag(self, thread_id: str) -> asyncio.Event:
        """The flag a run of ``thread_id`` watches (a fresh one once the last was set)."""
        flag = self._flags.get(thread_id)
        if flag is None or flag.is_set():
            flag = self._flags[thread_id] = asyncio.Event()
        return flag

    def clear(self, thread_id: str, flag: asyncio.Event) -> None:
        """The run that held ``flag`` ended."""
        if self._flags.get(thread_id) is flag:
            del self._flags[thread_id]

    def request_stop(self, thread_id: str) -> bool:
        """Set the flag of the run of ``thread_id`` going here, if there is one."""
        flag = self._flags.get(thread_id)
        if flag is None:
            return False
        flag.set()
        return True
