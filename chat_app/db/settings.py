"""Where the database lives: one URL from the environment, shared with Reflex.

``REFLEX_DB_URL`` wins so that ``reflex db migrate`` and the app always agree; ``BATON_DB_URL``
is the project's own name for the same setting. The default is an SQLite file in the current
directory, which is what a single-user install wants.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = [
    "DEFAULT_DB_URL",
    "backend_workers",
    "database_url",
    "normalize_url",
    "pool_settings",
    "start_lane_enabled",
    "turn_process_enabled",
]

DEFAULT_DB_URL = "sqlite:///baton.db"


def normalize_url(url: str) -> str:
    """Return ``url`` with PostgreSQL pointed at the psycopg 3 driver.

    SQLAlchemy reads a bare ``postgresql://`` as psycopg2, which Baton does not install;
    the same database URL should work whether someone copies it from ``psql`` or a PaaS.
    """
    for prefix in ("postgresql://", "postgres://", "postgresql+psycopg2://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def database_url() -> str:
    """The SQLAlchemy URL of Baton's database (environment, else ``sqlite:///baton.db``)."""
    raw = os.environ.get("REFLEX_DB_URL") or os.environ.get("BATON_DB_URL") or DEFAULT_DB_URL
    return normalize_url(raw.strip())


#: Connections all backend workers may open together (PostgreSQL's default max_connections is
#: 100; the rest is left to migrations, psql and other clients).
DEFAULT_CONNECTION_BUDGET = 80
_MAX_WORKERS = 8  # as Reflex 0.10 caps its own count


def backend_workers(env: Mapping[str, str] | None = None) -> int:
    """How many backend processes serve: exactly one without Redis (each worker would keep
    its own tabs' state); with Redis ``GRANIAN_WORKERS`` if set, else one per two cores (at
    least 1, at most 8). Reflex's own default, ``2 × cores + 1``, left five workers on two
    cores taking the cores from each other (``chat_app.supervision`` applies this count)."""
    env = os.environ if env is None else env
    if not env.get("REFLEX_REDIS_URL"):
        return 1
    if env.get("GRANIAN_WORKERS", "").strip().isdigit():
        return max(1, int(env["GRANIAN_WORKERS"]))
    return max(1, min(_cores() // 2, _MAX_WORKERS))


def state_in_worker(env: Mapping[str, str] | None = None) -> bool:
    """Whether Reflex keeps the tabs' state in the worker's memory although Redis is set:
    with one backend worker there is no other process to share it with, and Redis would
    only add a round trip (and a lock) to every event of every tab. Redis still carries the
    live channel between tabs (``services.runtime.live``)."""
    env = os.environ if env is None else env
    return bool(env.get("REFLEX_REDIS_URL")) and backend_workers(env) == 1


def _cores() -> int:
    """The cores this process may run on (a container's share, not the host's)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def turn_process_enabled(env: Mapping[str, str] | None = None) -> bool:
    """Whether each backend worker runs its turns in a process of its own
    (``chat_app.services.runtime.turn_process``): ``BATON_TURN_PROCESS`` ``on`` or ``off``; by default
    on with one backend worker, and off with several, which already spread over the cores."""
    env = os.environ if env is None else env
    value = env.get("BATON_TURN_PROCESS", "").strip().lower()
    if value in {"on", "off"}:
        return value == "on"
    return backend_workers(env) == 1


def start_lane_enabled(env: Mapping[str, str] | None = None) -> bool:
    """Whether a starting turn's blocking calls get threads of their own
    (``chat_app.services.runtime.start_lane``): ``BATON_START_LANE`` ``on`` (the default)
    or ``off``."""
    env = os.environ if env is None else env
    value = env.get("BATON_START_LANE", "on").strip().lower() or "on"
    if value not in ("on", "off"):
        raise ValueError(f"BATON_START_LANE must be on or off, not {value!r}")
    return value == "on"


def pool_settings(env: Mapping[str, str] | None = None) -> dict[str, int]:
    """PostgreSQL pool size per worker, derived from the workers and the connection budget.

    ``BATON_DB_CONNECTIONS`` (default 80) is shared by every worker and its turn process; each
    process gets an equal part (at least 4), two thirds kept open and the rest as overflow. A request that finds its
    worker's pool exhausted waits ``BATON_DB_POOL_TIMEOUT`` seconds (default 10), then fails
    with a "database busy" error the chat shows, instead of hanging.
    """
    env = os.environ if env is None else env
    budget = int(env.get("BATON_DB_CONNECTIONS", DEFAULT_CONNECTION_BUDGET))
    processes = backend_workers(env) * (2 if turn_process_enabled(env) else 1)
    per_worker = max(4, budget // processes)
    size = max(2, per_worker * 2 // 3)
    return {
        "pool_size": size,
        "max_overflow": per_worker - size,
        "pool_timeout": int(env.get("BATON_DB_POOL_TIMEOUT", "10")),
    }
