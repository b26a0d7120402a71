"""Database fixtures shared by the store contract, reliability and repository tests.

PostgreSQL tests run in a fresh schema per test session (dropped at the end) on
``BATON_TEST_PG_URL`` (default ``postgresql://postgres@127.0.0.1:5432/test``) and skip,
saying why, only when no server answers there.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from chat_app.db import repo
from chat_app.db.engine import dispose_engine, get_engine, write_engine
from chat_app.db.migrate import migrate
from chat_app.db.settings import normalize_url

DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/test"


def pg_base_url() -> str:
    return normalize_url(os.environ.get("BATON_TEST_PG_URL", DEFAULT_PG_URL))


def pg_unreachable_reason() -> str | None:
    """Why PostgreSQL cannot be used, or None when a server answers."""
    import psycopg

    url = pg_base_url().replace("postgresql+psycopg://", "postgresql://", 1)
    try:
        psycopg.connect(url, connect_timeout=3).close()
    except psycopg.OperationalError as exc:
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return f"PostgreSQL not reachable at BATON_TEST_PG_URL ({first_line})"
    return None


def _admin_execute(sql: str) -> None:
    import psycopg

    url = pg_base_url().replace("postgresql+psycopg://", "postgresql://", 1)
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(sql)


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """URL of a migrated, empty schema of its own on the test PostgreSQL server."""
    reason = pg_unreachable_reason()
    if reason:
        pytest.skip(reason)
    schema = f"baton_test_{uuid.uuid4().hex[:12]}"
    _admin_execute(f'CREATE SCHEMA "{schema}"')
    separator = "&" if "?" in pg_base_url() else "?"
    url = f"{pg_base_url()}{separator}options=-csearch_path%3D{schema}"
    try:
        migrate(url)
        yield url
    finally:
        dispose_engine(url)
        _admin_execute(f'DROP SCHEMA "{schema}" CASCADE')


def sqlite_url(directory: Path) -> str:
    return f"sqlite:///{directory / 'baton.db'}"


def migrated_sqlite(directory: Path) -> str:
    url = sqlite_url(directory)
    migrate(url)
    return url


def create_thread(engine: Engine, *, owner: str = "tester", title: str = "Test chat") -> str:
    """A new thread (with the default assistant) and its id."""
    with Session(write_engine(engine)) as session:
        assistant = repo.ensure_default_assistant(session=session)
        thread = repo.create_thread(
            session=session, owner=owner, assistant_id=assistant.id, title=title
        )
        return thread.id


def engine_for(url: str) -> Engine:
    return get_engine(url)


def plant_legacy_file(store: Any, thread_id: str, path: str, content: str) -> None:
    """A file stored under a name from before today's path rule, past SqlStore's check (as a
    database from an older version holds it)."""
    from chat_app.db.models import ThreadFile

    with Session(store._writer) as db:
        db.add(ThreadFile(thread_id=thread_id, path=path, content=content))
        db.commit()
