"""PostgreSQL connections are pinged before use only after sitting idle, and one that a
server restart dropped is replaced, not handed to a request."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from chat_app.db.engine import PING_AFTER_IDLE_SECONDS, get_engine
from chat_app.db.store import SqlStore
from tests.chat_app.db.backends import _admin_execute, create_thread, pg_url  # noqa: F401

pytestmark = pytest.mark.postgres


@pytest.fixture
def engine(pg_url: str) -> Iterator[Engine]:  # noqa: F811
    engine = get_engine(pg_url)  # the app's own engine for that URL
    engine.dispose()  # nothing pooled by an earlier test
    yield engine
    engine.dispose()


@pytest.fixture
def pings(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> list[float]:
    seen: list[float] = []
    ping = engine.dialect.do_ping

    def counted(dbapi_connection) -> bool:
        seen.append(time.monotonic())
        return ping(dbapi_connection)

    monkeypatch.setattr(engine.dialect, "do_ping", counted)
    return seen


def _pooled_pids(engine: Engine, count: int) -> list[int]:
    """Check out ``count`` connections at once, note their server pids, return them."""
    held = [engine.connect() for _ in range(count)]
    pids = [c.execute(text("SELECT pg_backend_pid()")).scalar_one() for c in held]
    for connection in held:
        connection.close()
    return pids


def test_a_connection_in_use_is_not_pinged_one_that_sat_idle_is(engine, pings) -> None:
    store = SqlStore(engine)
    thread_id = create_thread(engine)
    for _ in range(20):
        store.current_session(thread_id)
    assert pings == []  # each call took the connection the one before had just put back
    time.sleep(PING_AFTER_IDLE_SECONDS + 0.2)
    store.current_session(thread_id)
    assert len(pings) == 1


def test_connections_a_restart_dropped_are_replaced_before_a_request_gets_them(
    engine, pings
) -> None:
    store = SqlStore(engine)
    thread_id = create_thread(engine)
    session = store.current_session(thread_id)
    pids = _pooled_pids(engine, 3)
    _admin_execute(f"SELECT pg_terminate_backend(pid) FROM unnest(ARRAY{pids}) AS pid")
    time.sleep(PING_AFTER_IDLE_SECONDS + 0.2)  # a restart takes longer than that
    for _ in range(5):
        assert store.current_session(thread_id).id == session.id
    assert pings, "the idle connections were used without a ping"
    assert not set(pids) & set(_pooled_pids(engine, 3))
