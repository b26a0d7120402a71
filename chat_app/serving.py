"""How each production backend worker runs: its garbage collector tuned for many chats
(:func:`tune_garbage_collector`), memory given back (:func:`release_memory`), and Reflex's
opportunistic Redis locks refused (:func:`refuse_opportunistic_locks`). How many workers run
and how a dead one is replaced is :mod:`chat_app.supervision`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging
import os
import sys
from collections.abc import MutableMapping

__all__ = [
    "GC_YOUNG_THRESHOLD",
    "GIL_SWITCH_INTERVAL",
    "refuse_opportunistic_locks",
    "release_memory",
    "tune_garbage_collector",
    "tune_thread_switching",
]

_log = logging.getLogger(__name__)


def refuse_opportunistic_locks(env: MutableMapping[str, str] = os.environ) -> bool:
    """Turn Reflex's ``REFLEX_OPLOCK_ENABLED`` off (with a warning) when it is set; True then.

    With it a worker keeps a tab's state in memory between events and writes it to Redis
    later; several workers then lost messages: 11 of 201 sent from 4 tabs in
    ``tests/browser/test_scale_out.py`` were never stored. Runs in the supervisor (from
    ``rxconfig.py``) before the workers start, so they inherit the setting.
    """
    value = env.get("REFLEX_OPLOCK_ENABLED", "").strip().lower()
    if value not in {"true", "1", "yes", "y"}:
        return False
    _log.warning("REFLEX_OPLOCK_ENABLED is turned off: with several workers it loses messages")
    env["REFLEX_OPLOCK_ENABLED"] = "false"
    return True


#: Allocations (net of frees) between youngest-generation collections; CPython's default is
#: 700. The older generations keep their ratios to it, so they run as much more rarely.
GC_YOUNG_THRESHOLD = 5_000


def tune_garbage_collector() -> None:
    """Collect less often, and never again walk what the worker built while starting.

    Under a hundred chats (``bench/load.py``) the worker collected cyclic garbage 13 times
    a second; every collection holds the GIL, so the event loop and every thread stopped
    with it: about a ninth of the worker's time, and a full collection every ten seconds
    paused it 0.25-0.3 s. ``gc.freeze`` moves what exists once the app is loaded out of the
    collector's sight (Instagram's recipe for the same stalls); the larger young threshold
    lets most short-lived objects be freed by their reference counts before a collection
    looks at them. Measured the same way after: 4% of the time, peak memory unchanged (a
    threshold of 20,000 cut it further but raised the peak by 200 MB).
    """
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, middle, old)


#: How long a thread may hold the GIL while another waits for it (CPython's default: 5 ms).
GIL_SWITCH_INTERVAL = 0.001


def tune_thread_switching() -> None:
    """Let a thread that waits for the GIL have it after 1 ms instead of 5.

    Every database round trip and socket write lets go of the GIL; while a thread of the
    process computes (a store call's ORM work in the executor, a run's token counting), the
    event loop then waits a whole switch interval to take it back, once per round trip (the
    convoy effect). With one such thread beside it, the ten reads of a chat page's load took
    591 ms at 5 ms and 183 ms at 1 ms on PostgreSQL (38 ms with no thread beside), 509 and
    109 ms on SQLite (21 ms alone): ``python -m bench.switching``.
    """
    sys.setswitchinterval(GIL_SWITCH_INTERVAL)


def release_memory() -> None:
    """Give freed memory back to the system: collected, then the C heap trimmed (glibc)."""
    gc.collect()
    libc = ctypes.util.find_library("c")
    trim = getattr(ctypes.CDLL(libc), "malloc_trim", None) if libc else None
    if trim is not None:
        trim(0)
