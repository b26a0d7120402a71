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

Granian has no hook for a respawn policy, so ``supervise_workers`` (in ``chat_app.upstream``,
with the app's other reaches into libraries' internals) installs a subclass of its server
that overrides one private method, ``_respawn_workers``: a dead worker's respawn is held
back by a timer that wakes granian's own serve loop when it is due, and the respawn times
that loop reads to declare a crash loop are forgotten once a respawn is done.
``tests/chat_app/test_supervision.py`` pins the policy, ``tests/chat_app/test_upstream.py``
what it touches in granian, and ``tests/browser/test_scale_out.py`` kills a worker and its
replacement on a real server.
"""

from __future__ import annotations

import logging
import os
from collections.abc import MutableMapping

from chat_app.db.settings import backend_workers

__all__ = [
    "FIRST_DELAY_SECONDS",
    "MAX_DELAY_SECONDS",
    "STABLE_SECONDS",
    "respawn_delay",
    "settle_worker_count",
]

_log = logging.getLogger(__name__)

FIRST_DELAY_SECONDS = 1.0
MAX_DELAY_SECONDS = 30.0
#: A worker that lived this long before it died was not crash-looping: respawned at once.
STABLE_SECONDS = 60.0


def respawn_delay(quick_deaths: int) -> float:
    """Seconds before a worker slot is respawned after ``quick_deaths`` deaths in a row, each
    soon after the slot's worker started: none for a worker that had been running, then
    1, 2, 4 … at most 30."""
    if quick_deaths <= 0:
        return 0.0
    return min(MAX_DELAY_SECONDS, FIRST_DELAY_SECONDS * 2 ** (quick_deaths - 1))


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
