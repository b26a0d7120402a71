"""Turn starts go first: a run is marked while it starts a turn, and turns already under way
let it pass.

A run is *starting* from :func:`begin_start` until :func:`end_start` (its first output),
marked in a context variable, so every task and thread the run spawns sees the same mark
(:func:`starting`). The app reads the mark: its default executor gives a starting run's
blocking calls threads of their own (``chat_app.services.runtime.start_lane``), and its
database writer lets a starting run's write go first. Without them (tests, the CLI) the
marks change nothing.

Threads are not enough when the worker is short of CPU (one process runs Python one thread
at a time): every turn's next step competes with the starts. So a turn past its start, at the
top of each later model call (its last step already stored), waits while other turns of the
process are starting (:func:`yield_to_starts`), for at most ``MAX_YIELD_SECONDS``, so no turn
waits long whatever arrives. A quiet worker has no starts pending and nobody waits.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import weakref

__all__ = [
    "begin_start",
    "begin_turn",
    "end_start",
    "starting",
    "yield_to_starts",
    "MAX_YIELD_SECONDS",
]

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
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(starts.none.wait(), MAX_YIELD_SECONDS)


def starting() -> bool:
    phase = _phase.get()
    return phase is not None and phase.starting
