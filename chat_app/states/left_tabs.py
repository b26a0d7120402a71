"""Tabs that left stop holding the worker's memory.

Without Redis, Reflex keeps every tab's state tree in the worker's memory until its token
expires (``redis_token_expiration``, an hour) and also writes it to disk
(``StateManagerDisk``). A tab whose websocket is no longer open here has no use for the
copy in memory: :func:`evict_left_tabs` drops it once the tab has been gone for
``GRACE_SECONDS`` and nothing is pending for it (no unwritten change, no lock held). A tab
that comes back (a reload, a reconnect) gets its state read back from disk, as after a
restart; a turn still running for it reads it back at its next update. The memory they
held is given back (a full collection, then the C heap trimmed) once no turn runs in the
worker (:func:`release_due`): the collection stops every chat while it walks the heap.

With Redis the state lives in Redis, with its own expiry; each event's copy read from it
is garbage after the event, and the same release runs once turns have run and none runs
now (:func:`_release_after_turns`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from reflex.istate.manager.disk import StateManagerDisk
from reflex.istate.manager.redis import StateManagerRedis

from chat_app.root import root
from chat_app.serving import release_memory
from chat_app.upstream import forget_disk_state, idle_disk_states

__all__ = [
    "evict_left_tabs",
    "sweep",
    "release_due",
    "SWEEP_SECONDS",
    "GRACE_SECONDS",
    "RELEASE_WAIT_SECONDS",
]

_log = logging.getLogger(__name__)

SWEEP_SECONDS = 2.0
#: How long a tab may be away (a reload, a network blip) before its memory copy goes.
GRACE_SECONDS = 5.0
#: The longest the memory of dropped states waits for a quiet worker to be given back.
RELEASE_WAIT_SECONDS = 60.0


def sweep(manager: StateManagerDisk, connected: set[str], now: float) -> int:
    """Drop the in-memory states of tabs not in ``connected`` and untouched for
    ``GRACE_SECONDS``, whose changes are on disk and whose lock is free. Returns how many."""
    evicted = 0
    for touched, token in list(idle_disk_states(manager)):
        if now - touched < GRACE_SECONDS or token.ident in connected:
            continue
        forget_disk_state(manager, token)
        evicted += 1
    return evicted


def _connected_tokens(app: Any) -> set[str]:
    return set(app.event_namespace.token_to_sid)


def release_due(owed_since: float | None, runs: int, now: float) -> bool:
    """Whether to give memory back now: some is owed, and no turn runs here (a full
    collection holds the GIL for as long as it walks the heap: every chat's stream and the
    health check stopped for it while the worker was busy), or it has waited long enough."""
    return owed_since is not None and (runs == 0 or now - owed_since >= RELEASE_WAIT_SECONDS)


async def evict_left_tabs(app: Any, runs_here: Callable[[], int] | None = None) -> None:
    """A lifespan task (Reflex passes ``app``): sweep every ``SWEEP_SECONDS``. ``runs_here``
    counts the turns running in this process (default: the process's app's)."""
    manager = app.state_manager
    if isinstance(manager, StateManagerRedis):
        await _release_after_turns(runs_here or (lambda: root().runs_here()))
        return
    if not isinstance(manager, StateManagerDisk):
        return  # the in-memory manager: no copy elsewhere
    owed_since: float | None = None  # when states were dropped whose memory is not given back
    while True:
        await asyncio.sleep(SWEEP_SECONDS)
        now = time.time()
        try:
            evicted = sweep(manager, _connected_tokens(app), now)
        except Exception:  # Reflex's internals moved: keep serving, stop sweeping
            _log.warning("cannot drop the states of tabs that left", exc_info=True)
            return
        if evicted:
            _log.info("dropped the in-memory states of %d tabs that left", evicted)
            owed_since = owed_since or now
        if release_due(owed_since, (runs_here or root().runs_here)(), now):
            owed_since = None
            await asyncio.to_thread(release_memory)


async def _release_after_turns(runs_here: Callable[[], int]) -> None:
    """With Redis every event reads its tab's state from Redis and drops it after: the copies
    are garbage the young collections leave to the rare full one, so a worker kept what a
    load built up. Give it back once turns have run and none runs now."""
    owed_since: float | None = None
    while True:
        await asyncio.sleep(SWEEP_SECONDS)
        now = time.time()
        runs = runs_here()
        if runs and owed_since is None:
            owed_since = now
        if release_due(owed_since, runs, now):
            owed_since = None
            await asyncio.to_thread(release_memory)
