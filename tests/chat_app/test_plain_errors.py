"""A database that fails under a chat (full, read-only, dropped) is told in plain words,
never in the driver's text, and neither the page nor the log gets what the user typed.

The faults are real: SQLite's own page limit and read-only switch, tables dropped under the
app; on PostgreSQL read-only transactions and a dropped schema. A full PostgreSQL disk
cannot be made here; its SQLSTATE is mapped in ``db/test_failures.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import event

from chat_app.db.engine import dispose_engine, write_engine
from chat_app.root import install, root, uninstall
from chat_app.services.presentation.ui_events import Refused
from tests.chat_app.db.backends import _admin_execute, pg_base_url, pg_unreachable_reason

TYPED = "my-private-note-" + uuid.uuid4().hex
PLAIN = {
    "full": "The database's disk is full",
    "read_only": "The database is read-only",
    "dropped": "The database is gone (its tables, or the database itself, were removed)",
}
DRIVER_WORDS = (
    "sqlite3",
    "psycopg",
    "OperationalError",
    "[SQL",
    "parameters",
    "INSERT",
    "SELECT",
    "relation",
    "sqlalche.me",
)


@pytest.fixture
def app(request: pytest.FixtureRequest):
    """The app on the test's own database (``sqlite_app`` or ``postgres_app``)."""
    name = "postgres_app" if "postgres_app" in request.fixturenames else "sqlite_app"
    request.getfixturevalue(name)
    return root()


@pytest.fixture
def sqlite_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    url = f"sqlite:///{tmp_path / 'baton.db'}"
    yield from _serving(url, monkeypatch)


@pytest.fixture
def postgres_app(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    reason = pg_unreachable_reason()
    if reason:
        pytest.skip(reason)
    schema = f"baton_fault_{uuid.uuid4().hex[:12]}"
    _admin_execute(f'CREATE SCHEMA "{schema}"')
    separator = "&" if "?" in pg_base_url() else "?"
    url = f"{pg_base_url()}{separator}options=-csearch_path%3D{schema}"
    try:
        yield from _serving(url, monkeypatch)
    finally:
        _admin_execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def _serving(url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    from chat_app.services.runtime.container import build_app
    from chat_app.settings import Settings

    monkeypatch.setenv("BATON_SIM_DELAY", "0")
    install(build_app(Settings(db_url=url)))
    yield url
    uninstall()
    dispose_engine(url)


def _on_every_connection(sql: str) -> None:

    def on_connect(dbapi, _record) -> None:
        dbapi.cursor().execute(sql)
        # psycopg opened a transaction for it: a rollback would undo a PostgreSQL SET.
        dbapi.commit()

    engine = root().engine
    for target in (engine, write_engine(engine)):
        event.listen(target, "connect", on_connect)
        # Connections pooled before the fault would still write: every one opens anew.
        target.dispose()


def _drop_sqlite_tables(url: str) -> None:

    root().engine.dispose()
    with sqlite3.connect(url.removeprefix("sqlite:///")) as db:
        names = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        for (name,) in names:
            with contextlib.suppress(sqlite3.OperationalError):  # an FTS table's shadows
                db.execute(f'DROP TABLE IF EXISTS "{name}"')
    root().engine.dispose()


def _fill_sqlite(url: str) -> None:
    with sqlite3.connect(url.removeprefix("sqlite:///")) as db:
        pages = db.execute("PRAGMA page_count").fetchone()[0]
    _on_every_connection(f"PRAGMA max_page_count = {pages}")


def _send_and_show(app) -> list[str]:
    """What the chat shows for a message sent now: its error events, or the plain reason of
    what the send raised (as the chat's stream and the turn process show it)."""
    from chat_app.services.conversation.runs import chat
    from chat_app.services.presentation.failures import describe_failure

    async def send() -> list[str]:
        shown = []
        try:
            async for item in chat.send_message(app, OWNER, THREAD[0], TYPED, client_id="c-1"):
                if isinstance(item, Refused):
                    shown.append(item.message)
        except Exception as exc:  # noqa: BLE001 - what the page would say about it
            shown.append(describe_failure(exc))
        return shown

    return asyncio.run(send())


OWNER = "owner-fault"
THREAD: list[str] = []


def _check(shown: list[str], plain: str, caplog: pytest.LogCaptureFixture) -> None:
    assert shown and all(text.startswith(plain) for text in shown), shown
    for text in shown:
        assert not any(word in text for word in DRIVER_WORDS), text
        assert TYPED not in text
    logged = "\n".join(logging.Formatter().format(record) for record in caplog.records)
    assert TYPED not in logged
    assert "[parameters: (" not in logged


def _new_thread(app) -> None:
    from chat_app.services.conversation.threads import chats as threads

    THREAD[:] = [threads.create_thread(app, OWNER, "Notes").id]


@pytest.mark.parametrize(
    ("fault", "plain"),
    [
        (lambda url: _fill_sqlite(url), PLAIN["full"]),
        (lambda url: _on_every_connection("PRAGMA query_only = 1"), PLAIN["read_only"]),
        (_drop_sqlite_tables, PLAIN["dropped"]),
    ],
    ids=["full", "read-only", "dropped"],
)
def test_sqlite_failures_are_told_in_plain_words(
    sqlite_app: str, fault: Callable[[str], None], plain: str, caplog: pytest.LogCaptureFixture, app
) -> None:
    _new_thread(app)
    fault(sqlite_app)
    with caplog.at_level(logging.DEBUG):
        shown = _send_and_show(app)
    _check(shown, plain, caplog)


def _drop_schema(url: str) -> None:

    schema = url.rsplit("search_path%3D", 1)[1]
    _admin_execute(f'DROP SCHEMA "{schema}" CASCADE')
    root().engine.dispose()


@pytest.mark.postgres
@pytest.mark.parametrize(
    ("fault", "plain"),
    [
        (
            lambda url: _on_every_connection("SET default_transaction_read_only = on"),
            PLAIN["read_only"],
        ),
        (_drop_schema, PLAIN["dropped"]),
    ],
    ids=["read-only", "dropped"],
)
def test_postgresql_failures_are_told_in_plain_words(
    postgres_app: str,
    fault: Callable[[str], None],
    plain: str,
    caplog: pytest.LogCaptureFixture,
    app,
) -> None:
    _new_thread(app)
    fault(postgres_app)
    with caplog.at_level(logging.DEBUG):
        shown = _send_and_show(app)
    _check(shown, plain, caplog)


def test_an_event_that_fails_because_redis_is_cut_says_so_in_plain_words() -> None:
    """A send during a Redis cut once showed "An unexpected error (ConnectionError) stopped
    this": neither stored nor refused with a reason. The cut is a proxy the test controls."""
    redis = pytest.importorskip("redis")
    from chat_app.services.presentation.failures import REDIS_CUT, describe_failure
    from chat_app.states.failure_toast import backend_exception_handler
    from tests.tcp_proxy import proxied

    try:
        redis.Redis(host="127.0.0.1", port=6379, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        pytest.skip(f"Redis is not reachable at 127.0.0.1:6379: {exc}")
    with proxied(("127.0.0.1", 6379)) as proxy:
        client = redis.Redis(host="127.0.0.1", port=proxy.port, socket_connect_timeout=2)
        client.ping()
        proxy.cut()
        with pytest.raises(redis.RedisError) as cut:
            client.get("baton:anything")
    try:
        raise RuntimeError("the event failed") from cut.value
    except RuntimeError as wrapped:
        assert describe_failure(wrapped) == REDIS_CUT
    assert describe_failure(cut.value) == REDIS_CUT
    assert "Redis" in str(backend_exception_handler(cut.value))


def test_an_event_whose_state_lock_expired_says_so_in_plain_words() -> None:
    """47 of 231 failed events in the Redis-outage bench showed "An unexpected error
    (LockExpiredError) stopped this"."""
    from reflex_base.utils.exceptions import LockExpiredError

    from chat_app.services.presentation.failures import STATE_LOCK_EXPIRED, describe_failure

    assert describe_failure(LockExpiredError("Lock expired for token abc")) == STATE_LOCK_EXPIRED
