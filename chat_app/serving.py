"""How the production backend runs its workers: a dead worker is replaced.

Reflex 0.10 serves the backend with granian and starts ``2 × cores + 1`` worker processes when
Redis holds the state (one otherwise). Granian can respawn a worker that died
(``respawn_failed_workers``), but Reflex does not ask for it, so one ``kill -9`` (the kernel's
out-of-memory killer, a crash in a native library) stopped every worker and the server. This
module turns it on: :func:`supervise_workers` runs in the supervisor process (``rxconfig.py``
is imported there before the server starts) and makes granian's server respawn failed
workers; granian itself still exits on a crash loop (the same worker dying within 5.5 s).
"""

from __future__ import annotations

import importlib.util

__all__ = ["supervise_workers"]


def supervise_workers() -> bool:
    """Make granian respawn failed workers; False when granian is not installed."""
    if importlib.util.find_spec("granian") is None:
        return False
    import granian.server as granian_server

    base = granian_server.Server
    if getattr(base, "baton_respawns_workers", False):
        return True

    class RespawningServer(base):  # type: ignore[misc, valid-type]
        baton_respawns_workers = True

        def __init__(self, *args, **kwargs) -> None:
            kwargs.setdefault("respawn_failed_workers", True)
            super().__init__(*args, **kwargs)

    # Reflex imports ``granian.server.Server`` when it starts the backend, after this ran.
    granian_server.Server = RespawningServer
    return True
