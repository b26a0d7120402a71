"""Database URL resolution, engine configuration and start-up migration."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest
from sqlalchemy import inspect, text

from chat_app.db.engine import get_engine
from chat_app.db.migrate import migrate
from chat_app.db.settings import DEFAULT_DB_URL, database_url, normalize_url
from tests.chat_app.db.backends import pg_url, sqlite_url  # noqa: F401

TABLES = {
    "assistant",
    "assistant_change",
    "assistant_mcp_server",
    "thread",
    "chat_session",
    "message",
    "context_edit",
    "thread_file",
    "pending_message",
    "share_link",
    "sign_in_failure_count",
    "admin_sign_in_link",
    "turn_lease",
    "imported_transcript",
    "transcript_replay",
    "reply_feedback",
    "user_settings",
    "alembic_version",
}


def test_url_comes_from_reflex_then_baton_then_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REFLEX_DB_URL", raising=False)
    monkeypatch.delenv("BATON_DB_URL", raising=False)
    assert database_url() == DEFAULT_DB_URL == "sqlite:///baton.db"
    monkeypatch.setenv("BATON_DB_URL", "sqlite:///other.db")
    assert database_url() == "sqlite:///other.db"
    monkeypatch.setenv("REFLEX_DB_URL", "postgresql://u@h:5432/db")
    assert database_url() == "postgresql+psycopg://u@h:5432/db"


@pytest.mark.parametrize(
    "raw", ["postgresql://h/db", "postgres://h/db", "postgresql+psycopg2://h/db"]
)
def test_postgres_urls_use_psycopg3(raw: str) -> None:
    assert normalize_url(raw) == "postgresql+psycopg://h/db"


def test_sqlite_engine_has_wal_busy_timeout_and_foreign_keys(tmp_path: Path) -> None:
    engine = get_engine(sqlite_url(tmp_path))
    assert get_engine(sqlite_url(tmp_path)) is engine
    with engine.connect() as connection:
        pragma = lambda name: connection.execute(text(f"PRAGMA {name}")).scalar()  # noqa: E731
        assert (pragma("journal_mode"), pragma("busy_timeout"), pragma("foreign_keys")) == (
            "wal",
            10000,
            1,
        )


def test_migrate_creates_every_table_and_is_idempotent(tmp_path: Path, monkeypatch) -> None:
    url = sqlite_url(tmp_path)
    monkeypatch.chdir(tmp_path)  # migrate() must not depend on the working directory
    migrate(url)
    migrate(url)
    from chat_app.db.search import is_search_object

    names = set(inspect(get_engine(url)).get_table_names())
    assert {name for name in names if not is_search_object(name)} == TABLES
    assert "message_search" in names  # SQLite's FTS5 index (and its shadow tables)


def _migrate_in_child(url: str) -> None:
    migrate(url)


def _migrate_concurrently(url: str) -> None:
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_migrate_in_child, args=(url,)) for _ in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
    assert [w.exitcode for w in workers] == [0, 0, 0]
    assert set(inspect(get_engine(url)).get_table_names()) >= TABLES


@pytest.mark.slow
def test_workers_starting_together_migrate_once_sqlite(tmp_path: Path) -> None:
    _migrate_concurrently(sqlite_url(tmp_path))


@pytest.mark.slow
@pytest.mark.postgres
def test_workers_starting_together_migrate_once_postgres(pg_url: str) -> None:  # noqa: F811
    # pg_url is already migrated; a fresh schema shows the race on an empty database.
    from tests.chat_app.db.backends import _admin_execute, pg_base_url

    schema = "baton_test_race_" + Path(pg_url).name[-6:].replace("=", "")
    _admin_execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    _admin_execute(f'CREATE SCHEMA "{schema}"')
    try:
        _migrate_concurrently(f"{pg_base_url()}?options=-csearch_path%3D{schema}")
    finally:
        _admin_execute(f'DROP SCHEMA "{schema}" CASCADE')


def test_the_migrations_build_exactly_the_models_schema(tmp_path: Path) -> None:
    # A model field without a migration (or the reverse) would only show up on a user's
    # database; compare the migrated schema with the SQLModel metadata.
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from sqlmodel import SQLModel

    import chat_app.db.models  # noqa: F401 - registers every table on the metadata
    from chat_app.db.search import is_search_object

    url = sqlite_url(tmp_path)
    migrate(url)
    with get_engine(url).connect() as connection:
        # The full-text index (FTS5 and its shadow tables) is the migration's alone.
        context = MigrationContext.configure(
            connection,
            opts={
                "compare_type": True,
                "include_object": lambda obj, name, *_: not is_search_object(name),
            },
        )
        assert compare_metadata(context, SQLModel.metadata) == []


def _counter_table(url: str):
    from chat_app.db.engine import write_session

    engine = get_engine(url)
    with write_session(engine) as db:
        db.exec(text("CREATE TABLE IF NOT EXISTS tally (n INTEGER)"))
    return engine


def test_sqlite_writers_of_a_worker_queue_and_none_is_refused(tmp_path: Path) -> None:
    # 16 threads writing at once: in SQLite's busy handler they slept and retried while the
    # lock sat free; queued in the process they take it in turn.
    import threading

    from chat_app.db.engine import write_session

    engine = _counter_table(sqlite_url(tmp_path))
    failures: list[BaseException] = []

    def write_many() -> None:
        try:
            for _ in range(25):
                with write_session(engine) as db:
                    db.exec(text("INSERT INTO tally VALUES (1)"))
        except BaseException as error:  # noqa: BLE001  (reported below)
            failures.append(error)

    threads = [threading.Thread(target=write_many) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not failures
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM tally")).scalar() == 16 * 25


def test_a_failed_or_abandoned_write_does_not_keep_the_writers_queue(tmp_path: Path) -> None:
    from sqlmodel import Session

    from chat_app.db.engine import write_engine, write_session

    engine = _counter_table(sqlite_url(tmp_path))
    with pytest.raises(RuntimeError), write_session(engine) as db:
        db.exec(text("INSERT INTO tally VALUES (1)"))
        raise RuntimeError("the change fails half-way")
    abandoned = Session(write_engine(engine))
    abandoned.exec(text("INSERT INTO tally VALUES (2)"))
    abandoned.connection().invalidate()  # the connection is dropped, not committed
    abandoned.close()
    # A queue still held by either would make this write give up ("database is locked").
    with write_session(engine) as db:
        db.exec(text("INSERT INTO tally VALUES (3)"))
    with engine.connect() as connection:
        assert connection.execute(text("SELECT n FROM tally")).scalars().all() == [3]


def test_a_starting_runs_write_goes_before_writes_that_waited_longer(tmp_path: Path) -> None:
    # A turn's start writes three or four times before its first words; behind every turn
    # under way, each of those waited for the whole queue.
    import contextvars
    import threading
    import time

    from agent_core.runtime import _lanes as lanes
    from chat_app.db.engine import write_session

    engine = _counter_table(sqlite_url(tmp_path))
    order: list[int] = []

    def write(n: int) -> None:
        with write_session(engine) as db:
            db.exec(text(f"INSERT INTO tally VALUES ({n})"))
            order.append(n)

    def starting_write() -> None:
        lanes.begin_start()
        write(99)

    holder = write_session(engine)
    db = holder.__enter__()
    db.exec(text("INSERT INTO tally VALUES (0)"))  # holds the worker's write lock
    waiting = [threading.Thread(target=write, args=(n,)) for n in range(1, 7)]
    for thread in waiting:
        thread.start()
    time.sleep(0.2)  # the six are queued
    urgent = threading.Thread(target=contextvars.copy_context().run, args=(starting_write,))
    urgent.start()
    time.sleep(0.2)
    holder.__exit__(None, None, None)
    for thread in [*waiting, urgent]:
        thread.join(30)
    assert order[0] == 99 and sorted(order[1:]) == [1, 2, 3, 4, 5, 6]


def test_writers_queue_lets_the_others_go_when_an_urgent_waiter_gives_up() -> None:
    import threading

    from chat_app.db.engine import WriterQueue

    queue = WriterQueue()
    assert queue.acquire(1.0)
    assert not queue.acquire(0.1, urgent=True)  # held: the urgent waiter times out
    got: list[bool] = []
    other = threading.Thread(target=lambda: got.append(queue.acquire(5.0)))
    other.start()
    queue.release()
    other.join(5)
    assert got == [True]
    queue.release()
    assert queue.acquire(0.1, urgent=True)
