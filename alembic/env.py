"""Alembic environment for Baton.

Two ways in: ``chat_app.db.migrate.migrate()`` hands over an open connection (holding the
migration lock) in ``config.attributes["connection"]``; the ``alembic`` command line gets
the URL from ``chat_app.db.settings`` like the app does.
"""

from __future__ import annotations

import logging.config

from alembic import context
from sqlmodel import SQLModel

import chat_app.db.models  # noqa: F401  (registers every table on SQLModel.metadata)
from chat_app.db.engine import get_engine
from chat_app.db.search import is_search_object
from chat_app.db.settings import database_url

config = context.config
target_metadata = SQLModel.metadata

if config.config_file_name is not None and config.attributes.get("configure_logging", True):
    logging.config.fileConfig(config.config_file_name, disable_existing_loggers=False)


def _configure(connection) -> None:  # type: ignore[no-untyped-def]
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        # SQLite cannot ALTER most things; batch mode rebuilds the table instead.
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
        include_object=include_object,
    )


def include_object(obj, name, type_, reflected, compare_to) -> bool:  # type: ignore[no-untyped-def]
    """Autogenerate leaves the full-text search index alone: no model describes it."""
    return not is_search_object(name)


def run_migrations_offline() -> None:
    context.configure(
        url=config.get_main_option("sqlalchemy.url") or database_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure(connection)
        with context.begin_transaction():
            context.run_migrations()
        return
    url = config.get_main_option("sqlalchemy.url") or database_url()
    with get_engine(url).connect() as connection:
        _configure(connection)
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
