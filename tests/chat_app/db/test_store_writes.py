"""What the store's turn writes hold SQLite's single write lock for (every chat of a worker
queues on it): the checks made before every model call take no write lock at all."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from agent_core import NewMessage
from chat_app.db.engine import get_engine
from chat_app.db.store import SqlStore
from tests.chat_app.db.backends import create_thread, migrated_sqlite


def _writer_holding_the_lock(path: str) -> sqlite3.Connection:
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    other.execute("UPDATE thread SET title = title")
    return other


def test_nothing_queued_is_found_without_the_write_lock(tmp_path: Path) -> None:
    url = migrated_sqlite(tmp_path)
    engine = get_engine(url)
    store, thread_id = SqlStore(engine), create_thread(engine)
    session = store.current_session(thread_id)
    store.append(thread_id, session.id, [NewMessage(role="user", content="hi")])
    other = _writer_holding_the_lock(engine.url.database)
    outcome: list[object] = []
    done = threading.Event()

    def deliver() -> None:
        try:
            outcome.append(store.deliver_pending(thread_id, session.id))
        except Exception as error:  # noqa: BLE001 - the assertion below names it
            outcome.append(error)
        done.set()

    threading.Thread(target=deliver, daemon=True).start()
    # Answered while another writer still holds the lock (a write would wait for it, then
    # fail after SQLite's busy timeout).
    answered_while_held = done.wait(30)
    other.execute("ROLLBACK")
    other.close()
    assert answered_while_held and outcome == [[]]


def test_queued_messages_are_delivered_once_with_the_next_numbers(tmp_path: Path) -> None:
    engine = get_engine(migrated_sqlite(tmp_path))
    store, thread_id = SqlStore(engine), create_thread(engine)
    session = store.current_session(thread_id)
    [first] = store.append(thread_id, session.id, [NewMessage(role="user", content="hi")])
    queued = [store.enqueue_pending(thread_id, text) for text in ("one", "two", "three")]
    delivered = store.deliver_pending(thread_id, session.id, limit=2)
    assert [(m.seq, m.content, m.meta["pending_id"]) for m in delivered] == [
        (first.seq + 1, "one", queued[0].id),
        (first.seq + 2, "two", queued[1].id),
    ]
    assert [m.content for m in store.deliver_pending(thread_id, session.id)] == ["three"]
    assert store.deliver_pending(thread_id, session.id) == []
    assert [m.content for m in store.messages(session.id)] == ["hi", "one", "two", "three"]
