"""On PostgreSQL, reads run in autocommit (no BEGIN and ROLLBACK round trips around them);
writes stay transactions, also on a connection a read had used just before."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from psycopg.pq import TransactionStatus
from sqlalchemy import event, text
from sqlalchemy.engine import Engine

from agent_core.storage import NewMessage
from chat_app.db import read_session
from chat_app.db.engine import get_engine
from chat_app.db.store import SqlStore
from tests.chat_app.db.backends import _admin_execute, create_thread, pg_url  # noqa: F401

pytestmark = pytest.mark.postgres


@pytest.fixture
def engine(pg_url: str) -> Iterator[Engine]:  # noqa: F811
    engine = get_engine(pg_url)
    engine.dispose()
    yield engine
    engine.dispose()


@pytest.fixture
def statuses(engine: Engine) -> Iterator[list[TransactionStatus]]:
    """The server-side transaction status after each statement the engine runs."""
    seen: list[TransactionStatus] = []

    def after(connection, *_args) -> None:
        seen.append(connection.connection.dbapi_connection.info.transaction_status)

    event.listen(engine, "after_cursor_execute", after)
    yield seen
    event.remove(engine, "after_cursor_execute", after)


def test_the_stores_reads_open_no_transaction(engine, statuses) -> None:
    store = SqlStore(engine)
    thread_id = create_thread(engine)
    session = store.current_session(thread_id)
    statuses.clear()
    store.sessions(thread_id)
    store.messages(session.id)
    store.context_edits(session.id)
    assert len(statuses) == 3
    assert set(statuses) == {TransactionStatus.IDLE}  # INTRANS: a BEGIN went first


def test_a_read_session_opens_no_transaction(engine, statuses) -> None:
    with read_session(engine) as db:
        db.execute(text("SELECT 1")).one()
        db.execute(text("SELECT 2")).one()
    assert statuses == [TransactionStatus.IDLE, TransactionStatus.IDLE]


def test_writes_stay_transactions_after_a_read_on_the_same_connection(engine, statuses) -> None:
    store = SqlStore(engine)
    thread_id = create_thread(engine)
    session = store.current_session(thread_id)
    with engine.connect() as probe:  # the pool's one idle connection from here on
        pid = probe.execute(text("SELECT pg_backend_pid()")).scalar_one()
    store.messages(session.id)
    statuses.clear()
    store.append(thread_id, session.id, [NewMessage(role="user", content="kept together")])
    assert statuses and set(statuses) == {TransactionStatus.INTRANS}
    with engine.connect() as probe:
        assert probe.execute(text("SELECT pg_backend_pid()")).scalar_one() == pid
    assert [m.content for m in store.messages(session.id)] == ["kept together"]
