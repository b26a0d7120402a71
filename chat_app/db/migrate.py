"""Schema migration at start-up: Alembic to head, once, even if workers start together."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

from chat_app.db.engine import get_engine
from chat_app.db.locks import named_lock, pg_advisory_lock

__all__ = ["alembic_config", "migrate", "MIGRATIONS_DIR"]

REPO_ROOT = Path(__file__).resolve().parents[2]
MIGRATIONS_DIR = REPO_ROOT / "alembic"
_LOCK_NAME = "schema-migration"


def alembic_config() -> Config:
    """An Alembic config built in code, so migrating works from any working directory."""
    config = Config(str(REPO_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    # The app configures its own logging; do not let alembic.ini replace it.
    config.attributes["configure_logging"] = False
    return config


def _upgrade(connection) -> None:
    config = alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, "head")
    connection.commit()


def migrate(url: str | None = None) -> None:
    """Apply every pending Alembic migration to the database at ``url`` (default: settings).

    Idempotent. Concurrent callers queue on a lock (a PostgreSQL advisory lock, or a lock
    file beside an SQLite database) and the later ones find the schema already at head.
    """
    engine = get_engine(url)
    if engine.dialect.name == "postgresql":
        # Migrate on the very connection that holds the lock; the advisory lock is the
        # only thing that stops two workers from both running CREATE TABLE.
        with pg_advisory_lock(engine, _LOCK_NAME) as connection:
            _upgrade(connection)
        return
    with named_lock(engine, _LOCK_NAME), engine.connect() as connection:
        _upgrade(connection)
