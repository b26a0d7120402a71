"""Where the database lives: one URL from the environment, shared with Reflex.

``REFLEX_DB_URL`` wins so that ``reflex db migrate`` and the app always agree; ``BATON_DB_URL``
is the project's own name for the same setting. The default is an SQLite file in the current
directory, which is what a single-user install wants.
"""

from __future__ import annotations

import os

__all__ = ["DEFAULT_DB_URL", "database_url", "normalize_url"]

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
