"""Turn starts go first: the blocking calls a turn makes before its first words get threads
of their own, and turns already under way let them pass.

Every store call of a run leaves the event loop through ``asyncio.to_thread``, onto the
loop's default executor: a first-come queue. With many chats mid-turn that queue is long,
and a new message's first words waited behind the steps of every other turn: each of the
half-dozen calls before a turn's first model call (its setup, storing the message, the
turn's lock, delivering it, reading the session) queued again.

:class:`LaneExecutor` is a default executor with a second, separate pool for calls made
while the calling run is *starting* (:func:`begin_start` until :func:`end_start`, marked per
run in a context variable, so every task and thread the run spawns sees the same mark). The
rest of a turn is not slowed: it keeps the whole main pool, and only waits less often
behind starts than starts waited behind it. Installed by the app for its event loop
(``loop.set_default_executor``); without it (tests, the CLI) the marks change nothing.

Threads are not enough when the worker is short of CPU (one process runs Python one thread
at a time): every turn's next step competes with the starts. So a turn past its start, at the
top of each later model call (its last step already stored), waits while other turns of the
process are starting (:func:`yield_to_starts`), for at most ``MAX_YIELD_SECONDS``, so no turn
waits long whatever arrives. A quiet worker has no starts pending and nobody waits.

The event loop is a first-come queue too: under load it is busy nearly all the time, and
each step of a start (a task waking, a graph node handing over to the next) waited behind
every callback other turns and tabs had made ready. :func:`starts_first` gives the loop a
ready queue (:class:`ReadyQueue`) in which a starting run's callbacks go before the others,
in their own order.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import logging
import os
import time
import weakref
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

__all__ = [
    "LaneExecutor",
    "ReadyQueue",
    "begin_start",
    "begin_turn",
    "end_start",
    "starting",
    "starts_first",
    "yield_to_starts",
    "MAX_YIELD_SECONDS",
]

_log = logging.getLogger(__name__)

#: The longest a turn under way waits at one step for other turns' starts.
MAX_YIELD_SECONDS = 1.0


class _Phase:
    """One run's mark; shared by every context copied from the run's, so ending the start
    reaches tasks (and threads) already created from it."""

    __slots__ = ("starting", "__weakref__")

    def __init__(self) -> None:
        self.starting = True


class _Starts:
    """The turns of one event loop that are starting now, and an event set when none is."""

    def __init__(self) -> None:
        self.turns: weakref.WeakSet[_Phase] = weakref.WeakSet()
        self.none = asyncio.Event()
        self.none.set()


_loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Starts] = weakref.WeakKeyDictionary()


def _starts() -> _Starts | None:
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    starts = _loops.get(loop)
    if starts is None:
        starts = _loops[loop] = _Starts()
    return starts


_phase: contextvars.ContextVar[_Phase | None] = contextvars.ContextVar(
    "baton_turn_phase", default=None
)
#: The mark of the start lane's threads outside the calls they run (see LaneExecutor).
_ALWAYS_STARTING = _Phase()


def begin_start() -> None:
    """The calling run is starting a turn: its blocking calls take the start lane."""
    phase = _phase.get()
    if phase is None:
        _phase.set(_Phase())
    else:
        phase.starting = True


def begin_turn() -> None:
    """The runner starts a turn: as :func:`begin_start`, and the other turns let it pass
    until :func:`end_start` (which the runner calls when the turn ends, whatever happens)."""
    begin_start()
    starts, phase = _starts(), _phase.get()
    if starts is not None and phase is not None:
        starts.turns.add(phase)
        starts.none.clear()


def end_start() -> None:
    """The calling run's turn has shown its first output (or ended): back to the main pool."""
    phase = _phase.get()
    if phase is None:
        return
    phase.starting = False
    starts = _starts()
    if starts is not None:
        starts.turns.discard(phase)
        if not starts.turns:
            starts.none.set()


async def yield_to_starts() -> None:
    """Wait while other turns are starting (at most ``MAX_YIELD_SECONDS``); at once for a run
    that is starting itself, or when none is."""
    starts = _starts()
    if starts is None or starting() or starts.none.is_set():
        return
    if not starts.turns:  # the last start was dropped without ending (its run was discarded)
        starts.none.set()
        return
    deadline = time.monotonic() + MAX_YIELD_SECONDS
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(starts.none.wait(), max(0.0, deadline - time.monotonic()))


def starting() -> bool:
    phase = _phase.get()
    return phase is not None and phase.starting


class LaneExecutor(ThreadPoolExecutor):
    """The main pool, plus a start lane for calls submitted while :func:`starting`."""

    def __init__(self, max_workers: int | None = None, start_workers: int = 8) -> None:
        super().__init__(
            max_workers or min(32, (os.cpu_count() or 1) + 4), thread_name_prefix="baton-work"
        )
        # Sized for the starts waiting at once (one call each at a time), not for the CPU:
        # a call that blocks (a lock held elsewhere) must not hold up every start.
        # A start lane's thread hands its results back to the loop as a starting run
        # (see ReadyQueue): the run's task wakes ahead of the others.
        self._starts = ThreadPoolExecutor(
            start_workers,
            thread_name_prefix="baton-start",
            initializer=_phase.set,
            initargs=(_ALWAYS_STARTING,),
        )

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future:
        if starting():
            return self._starts.submit(fn, *args, **kwargs)
        return super().submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._starts.shutdown(wait, cancel_futures=cancel_futures)
        super().shutdown(wait, cancel_futures=cancel_futures)


class ReadyQueue(collections.deque):
    """An event loop's ready callbacks (``loop._ready``), those of a starting run first.

    asyncio's loop appends every callback it makes ready and runs them from the left: here a
    callback whose context (``Handle._context``: the task's, or the caller's) belongs to a
    starting run goes into an urgent queue that is emptied first. Each queue keeps its
    order; a loop round runs as many callbacks as it found ready when it began, so the
    others wait at most for the urgent ones made ready meanwhile, and never for more than
    ``URGENT_STREAK`` in a row: a start that keeps its callbacks coming starves nobody.
    """

    URGENT_STREAK = 32

    def __init__(self, handles: Any = ()) -> None:
        super().__init__(handles)
        self.urgent: collections.deque = collections.deque()
        self._streak = 0

    def append(self, handle: Any) -> None:
        context = getattr(handle, "_context", None)
        phase = context.get(_phase) if context is not None else None
        if phase is not None and phase.starting:
            self.urgent.append(handle)
        else:
            super().append(handle)

    def popleft(self) -> Any:
        if self.urgent and (self._streak < self.URGENT_STREAK or not super().__len__()):
            self._streak += 1
            return self.urgent.popleft()
        self._streak = 0
        return super().popleft()

    def __len__(self) -> int:
        return super().__len__() + len(self.urgent)

    def __bool__(self) -> bool:
        return bool(self.urgent) or super().__len__() > 0

    def clear(self) -> None:
        self.urgent.clear()
        super().clear()


def starts_first(loop: asyncio.AbstractEventLoop) -> bool:
    """Give ``loop`` a :class:`ReadyQueue`; False (and nothing changed) when the loop is not
    asyncio's own (its ready queue is not a deque it appends to)."""
    ready = getattr(loop, "_ready", None)
    if isinstance(ready, ReadyQueue):
        return True
    if type(ready) is not collections.deque:
        _log.warning(
            "the event loop %s has no ready queue to order: starts wait in line",
            type(loop).__name__,
        )
        return False
    loop._ready = ReadyQueue(ready)  # type: ignore[attr-defined]
    return True
