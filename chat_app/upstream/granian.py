"""granian's internals the app touches: respawning a dead worker without stopping the
server. The reach is in :data:`REACHES`."""

from __future__ import annotations

import importlib
import importlib.util
import logging
import threading
import time

from chat_app.supervision import STABLE_SECONDS, respawn_delay
from chat_app.upstream.reach import Reach, names_in, signature_names

_log = logging.getLogger(__name__)

# ---------------------------------------------------------------------------------------
# granian: respawning a dead worker without stopping the server (chat_app.supervision).
#
# Granian has no hook for a respawn policy: the server's ``_respawn_workers`` is overridden,
# and the state its serve loop keeps (``wrks``, ``respawned_wrks``, ``interrupt_children``,
# ``main_loop_interrupt``, a worker's ``birth``) is read and changed.


class BackoffRespawns:
    """Mixed in before granian's server class: a dead worker's respawn backs off when it
    keeps dying (:func:`chat_app.supervision.respawn_delay`), instead of granian stopping
    the server. Graceful respawns (a reload, a worker's lifetime) of live workers stay
    granian's own."""

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


_EARLY_WAKE_SECONDS = 0.05  # a timer may wake a hair before its time


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


def _granian_respawns() -> bool:
    common = importlib.import_module("granian.server.common")
    server = common.AbstractServer
    return (
        signature_names(server._respawn_workers)
        == ["self", "workers", "spawn_target", "target_loader", "delay"]
        and all(
            name in names_in(server.__init__)
            for name in ("wrks", "respawned_wrks", "interrupt_children", "main_loop_interrupt")
        )
        # the serve loop reads the respawn times to declare a crash loop
        and "respawned_wrks" in names_in(server._serve_loop)
        and "birth" in names_in(common.AbstractWorker.__init__)
        and "respawn_failed_workers" in signature_names(server.__init__)
    )


REACHES: tuple[Reach, ...] = (
    Reach(
        "granian",
        "2.8.9",
        "AbstractServer._respawn_workers, respawned_wrks, interrupt_children, "
        "main_loop_interrupt, AbstractWorker.birth",
        _granian_respawns,
    ),
)
