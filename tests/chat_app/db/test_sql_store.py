"""SqlStore behaviour beyond the shared port contract: unknown threads, races, sanitizing."""

from __future__ import annotations

import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest

from agent_core import NewMessage
from agent_core.errors import StoreError
from agent_core.validation import sanitize_text
from chat_app.db.engine import get_engine
from chat_app.db.store import SqlStore
from tests.chat_app.db.backends import create_thread, migrated_sqlite, pg_url  # noqa: F401


@pytest.fixture(params=["sqlite", "postgres"])
def engine(request: pytest.FixtureRequest, tmp_path: Path):  # type: ignore[no-untyped-def]
    if request.param == "sqlite":
        return get_engine(migrated_sqlite(tmp_path))
    return get_engine(request.getfixturevalue("pg_url"))


def test_unknown_thread_is_refused(engine) -> None:  # type: ignore[no-untyped-def]
    store = SqlStore(engine)
    with pytest.raises(StoreError, match="unknown thread"):
        store.current_session(uuid.uuid4().hex)
    with pytest.raises(StoreError, match="unknown thread"):
        store.enqueue_pending(uuid.uuid4().hex, "hello")
    with pytest.raises(StoreError, match="unknown session"):
        store.append(uuid.uuid4().hex, "no-such-session", [NewMessage(role="user", content="x")])


def test_concurrent_first_use_creates_one_session(engine) -> None:  # type: ignore[no-untyped-def]
    store, thread = SqlStore(engine), create_thread(engine)
    start, results, errors = threading.Barrier(8), [], []

    def first_use() -> None:
        start.wait()
        try:
            results.append(store.current_session(thread).id)
        except Exception as exc:  # pragma: no cover - the assertion below reports it
            errors.append(exc)

    workers = [threading.Thread(target=first_use) for _ in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert errors == [] and len(set(results)) == 1
    assert [s.number for s in store.sessions(thread)] == [1]


def test_text_that_the_database_would_refuse_is_stored_sanitized(engine) -> None:  # type: ignore[no-untyped-def]
    store, thread = SqlStore(engine), create_thread(engine)
    session = store.current_session(thread)
    nasty = "a\x00b\ud800c"
    [row] = store.append(
        thread,
        session.id,
        [
            NewMessage(
                role="tool",
                content=nasty,
                name=nasty,
                meta={nasty: [nasty]},
                tool_calls=[{"args": nasty}],
            )
        ],
    )
    clean = sanitize_text(nasty)
    assert "\x00" not in clean and clean.encode("utf-8")
    [stored] = store.messages(session.id)
    assert stored == row
    assert (stored.content, stored.name, stored.meta, stored.tool_calls) == (
        clean,
        clean,
        {clean: [clean]},
        [{"args": clean}],
    )
    store.write_file(thread, "notes.md", nasty)
    assert store.read_file(thread, "notes.md") == clean
    assert store.enqueue_pending(thread, nasty).content == clean


def test_turn_lock_excludes_other_processes(engine) -> None:  # type: ignore[no-untyped-def]
    store, thread, other = SqlStore(engine), create_thread(engine), create_thread(engine)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.chat_app.db.workers",
            "hold",
            str(engine.url.render_as_string(hide_password=False)),
            thread,
        ],
        cwd=Path(__file__).resolve().parents[3],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        got = threading.Event()

        def take() -> None:
            with store.turn_lock(thread):
                got.set()

        threading.Thread(target=take, daemon=True).start()
        assert not got.wait(0.3), "this process entered a turn another process holds"
        with store.turn_lock(other):
            pass  # a different thread is not blocked by the other process's lock
        assert holder.stdin is not None
        holder.stdin.write("release\n")
        holder.stdin.flush()
        assert got.wait(10), "the lock was not handed over after the other process released it"
    finally:
        holder.kill()
        holder.wait(10)


def test_a_saturated_pool_is_a_clear_busy_refusal(tmp_path: Path) -> None:
    from sqlalchemy import create_engine

    url = migrated_sqlite(tmp_path)
    thread_id = create_thread(get_engine(url))
    tight = create_engine(
        url,
        pool_size=1,
        max_overflow=0,
        pool_timeout=0.5,
        connect_args={"check_same_thread": False},
    )
    store = SqlStore(tight)
    # The worker's only connection is taken.
    with tight.connect(), pytest.raises(StoreError, match="The database is busy"):
        store.enqueue_pending(thread_id, "hello")
    tight.dispose()


def test_a_read_only_database_is_refused_in_words_without_driver_text(tmp_path: Path) -> None:
    from sqlalchemy import create_engine

    url = migrated_sqlite(tmp_path)
    thread_id = create_thread(get_engine(url))
    database = url.removeprefix("sqlite:///")
    read_only = create_engine(
        f"sqlite:///file:{database}?mode=ro&uri=true", connect_args={"check_same_thread": False}
    )
    with pytest.raises(
        StoreError,
        match="The database is read-only; nothing was stored. Try "
        "again once an administrator has made it writable.",
    ) as refused:
        SqlStore(read_only).enqueue_pending(thread_id, "hello")
    assert "sqlite3" not in str(refused.value) and "OperationalError" not in str(refused.value)
    read_only.dispose()


def test_pool_sizes_follow_the_worker_count() -> None:
    from chat_app.db.settings import backend_workers, pool_settings, turn_process_enabled

    several = {"REFLEX_REDIS_URL": "redis://127.0.0.1:6379/0", "GRANIAN_WORKERS": "5"}
    assert backend_workers({}) == 1
    assert backend_workers(several) == 5
    assert turn_process_enabled({}) and not turn_process_enabled(several)
    one, five = pool_settings({}), pool_settings(several)
    # One worker and its turn process share the budget; several workers run turns themselves.
    assert 2 * (one["pool_size"] + one["max_overflow"]) == 80
    alone = pool_settings({"BATON_TURN_PROCESS": "off"})
    assert alone["pool_size"] + alone["max_overflow"] == 80
    assert 5 * (five["pool_size"] + five["max_overflow"]) <= 80
    tight = pool_settings({**several, "GRANIAN_WORKERS": "40", "BATON_DB_CONNECTIONS": "80"})
    assert tight["pool_size"] + tight["max_overflow"] == 4  # never below a working minimum
