"""How the supervisor keeps the backend's workers: how many it starts, and how it replaces one
that died, a crash loop included.

Reflex 0.10 serves the backend with granian. Two things about that are Baton's here:

- **How many workers.** Reflex starts ``2 × cores + 1`` when Redis holds the state. On a small
  machine that is too many: five workers on two cores spent the load bench's time taking the
  cores from each other, and 100 chats timed out. :func:`backend_workers` (``chat_app.db
  .settings``) chooses one worker per two cores instead, and :func:`settle_worker_count`
  writes that choice into ``GRANIAN_WORKERS`` before Reflex reads it.
- **Replacing a dead worker.** Granian respawns a failed worker when asked
  (``respawn_failed_workers``, which Reflex leaves off), but when the same worker slot dies
  again within 5.5 s of its respawn it logs "Worker crash loop detected" and stops the whole
  server, the healthy workers too, until someone restarts it by hand: killing a worker and
  then its replacement (the OOM killer picking both) was enough. Here a slot that dies soon
  after it started waits before its next respawn, 1 s doubling to 30 s
  (:func:`respawn_delay`), while the other workers keep serving; a slot whose worker lived
  ``STABLE_SECONDS`` is respawned at once again.

Granian has no hook for a respawn policy, so :func:`supervise_workers` installs a subclass of
its server that overrides one private method, ``_respawn_workers`` (written against granian
2.8): a dead worker's respawn is held back by a timer that wakes granian's own serve loop
when it is due, and the respawn times that loop reads to declare a crash loop are forgotten
once a respawn is done. ``tests/chat_app/test_supervision.py`` pins the policy and
``tests/browser/test_scale_out.py`` kills a worker and its replacement on a real server.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import threading
import time
from collections.abc import MutableMapping

from chat_app.db.settings import backend_workers

__all__ = [
    "FIRST_DELAY_SECONDS",
    "MAX_DELAY_SECONDS",
    "STABLE_SECONDS",
    "BackoffRespawns",
    "respawn_delay",
    "settle_worker_count",
    "supervise_workers",
]

_log = logging.getLogger(__name__)

FIRST_DELAY_SECONDS = 1.0
MAX_DELAY_SECONDS = 30.0
#: A worker that lived this long before it died was not crash-looping: respawned at once.
STABLE_SECONDS = 60.0
_EARLY_WAKE_SECONDS = 0.05  # a timer may wake a hair before its time


def respawn_delay(quick_deaths: int) -> float:
    """Seconds before a worker slot is respawned after ``quick_deaths`` deaths in a row, each
    soon after the slot's worker started: none for a worker that had been running, then
    1, 2, 4 … at most 30."""
    if quick_deaths <= 0:
        return 0.0
    return min(MAX_DELAY_SECONDS, FIRST_DELAY_SECONDS * 2 ** (quick_deaths - 1))


class BackoffRespawns:
    """Mixed in before granian's server class: a dead worker's respawn backs off when it
    keeps dying, instead of granian stopping the server. Graceful respawns (a reload, a
    worker's lifetime) of live workers stay granian's own."""

    wrks: list
    respawned_wrks: dict[int, float]
    interrupt_children: list[int]
    main_loop_interrupt: threading.Event

    def _respawn_workers(self, workers, spawn_target, target_loader, delay: float = 0) -> None:
        now = time.monotonic()
        due = []
        for idx in dict.fromkeys(workers):  # a slot named twice is respawned once
            worker = self.wrks[idx]
            if worker.is_alive() or self._backoff_wait(idx, worker.birth, now) <= 0:
                due.append(idx)
        if due:
            super()._respawn_workers(due, spawn_target, target_loader, delay)  # type: ignore[misc]
        # Granian's serve loop exits when a slot dies within 5.5 s of the respawn times kept
        # here; the backoff above decides instead.
        self.respawned_wrks.clear()

    def _backoff_wait(self, idx: int, born: float, now: float) -> float:
        """Seconds slot ``idx`` must still wait; a wake-up is scheduled when it must."""
        state = self.__dict__.setdefault("_baton_backoff", {})
        deaths, due_at, timer = state.get(idx, (0, None, None))
        if due_at is None:  # this death is new: count it
            deaths = deaths + 1 if now - born < STABLE_SECONDS else 0
            due_at = now + respawn_delay(deaths)
            timer = None
        wait = due_at - now
        if wait <= _EARLY_WAKE_SECONDS:
            state[idx] = (deaths, None, None)
            return 0.0
        if timer is None:
            _log.error(
                "worker-%d died %d times in a row soon after starting: respawned in %.0f s",
                idx + 1,
                deaths,
                wait,
            )
            timer = threading.Timer(wait, self._wake_for, args=(idx,))
            timer.daemon = True
            timer.start()
        state[idx] = (deaths, due_at, timer)
        return wait

    def _wake_for(self, idx: int) -> None:
        # Granian's serve loop respawns the slots listed here when woken (as a death does).
        self.interrupt_children.append(idx)
        self.main_loop_interrupt.set()

    def shutdown(self, exit_code: int = 0) -> None:
        for _, _, timer in self.__dict__.get("_baton_backoff", {}).values():
            if timer is not None:
                timer.cancel()
        super().shutdown(exit_code)  # type: ignore[misc]


def supervise_workers() -> bool:
    """Make granian respawn failed workers, backing off a crash loop; False when granian is
    not installed. Runs in the supervisor process (``rxconfig.py`` is imported there before
    Reflex starts the server)."""
    if importlib.util.find_spec("granian") is None:
        return False
    import granian.server as granian_server

    base = granian_server.Server
    if getattr(base, "baton_respawns_workers", False):
        return True

    class RespawningServer(BackoffRespawns, base):  # type: ignore[misc, valid-type]
        baton_respawns_workers = True

        def __init__(self, *args, **kwargs) -> None:
            kwargs.setdefault("respawn_failed_workers", True)
            super().__init__(*args, **kwargs)

    # Reflex imports ``granian.server.Server`` when it starts the backend, after this ran.
    granian_server.Server = RespawningServer
    return True


def settle_worker_count(env: MutableMapping[str, str] = os.environ) -> int:
    """Write the number of backend workers (:func:`backend_workers`) into ``GRANIAN_WORKERS``,
    where Reflex reads it, and return it. Several workers without Redis would each keep
    their own tabs' state: a count set so is brought down to one, with a warning."""
    asked = env.get("GRANIAN_WORKERS", "").strip()
    workers = backend_workers(env)
    if asked.isdigit() and int(asked) != workers:
        _log.warning(
            "GRANIAN_WORKERS=%s is ignored: without REFLEX_REDIS_URL one backend worker serves",
            asked,
        )
    env["GRANIAN_WORKERS"] = str(workers)
    return workers
