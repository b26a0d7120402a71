"""The PostgreSQL turn lease: losing connections loses nothing, and a lost lease cannot write."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine

from agent_core import NewMessage
from chat_app.db.lease import LeaseLost
from chat_app.db.settings import normalize_url
from chat_app.db.store import SqlStore
from tests.chat_app.db.backends import create_thread, pg_url  # noqa: F401

pytestmark = pytest.mark.postgres


@pytest.fixture
def workers(pg_url: str) -> Iterator[tuple[Engine, Engine]]:  # noqa: F811
    """Two worker processes' engines, told apart by their connections' application_name."""
    engines = tuple(
        create_engine(
            normalize_url(pg_url),
            pool_pre_ping=True,
            connect_args={"application_name": f"baton-lease-test-{n}"},
        )
        for n in (1, 2)
    )
    yield engines
    for engine in engines:
        engine.dispose()


def _take_in_background(
    store: SqlStore, thread_id: str, release: threading.Event
) -> threading.Event:
    taken = threading.Event()

    def run() -> None:
        with store.turn_lock(thread_id):
            taken.set()
            release.wait(30)

    threading.Thread(target=run, daemon=True).start()
    return taken


def test_killing_the_holders_connections_lets_no_second_worker_in(workers) -> None:
    first_engine, second_engine = workers
    first, second = SqlStore(first_engine), SqlStore(second_engine)
    thread_id = create_thread(first_engine)
    session = first.current_session(thread_id)
    release = threading.Event()
    with first.turn_lock(thread_id):
        first.append(thread_id, session.id, [NewMessage(role="user", content="step 1")])
        # A server restart, a failover or a pooler drops every connection of the worker.
        with second_engine.connect() as admin:
            killed = admin.execute(
                text(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE application_name = 'baton-lease-test-1'"
                )
            ).scalar()
        assert killed >= 1
        taken = _take_in_background(second, thread_id, release)
        assert not taken.wait(2.0), "a second worker took the thread while its turn ran"
        first.append(thread_id, session.id, [NewMessage(role="assistant", content="step 2")])
    assert taken.wait(10), "the thread stayed locked after the turn ended"
    release.set()
    assert [m.content for m in first.messages(session.id)] == ["step 1", "step 2"]


def test_a_turn_whose_lease_was_taken_over_stores_nothing_more(workers) -> None:
    first_engine, second_engine = workers
    first, second = SqlStore(first_engine), SqlStore(second_engine)
    thread_id = create_thread(first_engine)
    session = first.current_session(thread_id)
    release = threading.Event()
    with first.turn_lock(thread_id):
        hold = first._leases[thread_id]
        hold.stop()  # the worker stalls: no renewals (a long GC pause, a frozen VM)
        with first_engine.connect() as admin:
            admin.execute(text("UPDATE turn_lease SET expires_at = now() - interval '1 second'"))
            admin.commit()
        taken = _take_in_background(second, thread_id, release)
        assert taken.wait(10)
        second.append(thread_id, session.id, [NewMessage(role="user", content="the new holder")])
        with pytest.raises(LeaseLost, match="lost its hold"):
            first.append(thread_id, session.id, [NewMessage(role="assistant", content="stale")])
        with pytest.raises(LeaseLost):
            first.write_file(thread_id, "a.py", "stale")
        assert hold.renew() is False
    release.set()
    assert [m.content for m in second.messages(session.id)] == ["the new holder"]
    assert first.read_file(thread_id, "a.py") is None


def test_a_lease_is_renewed_while_the_turn_runs(workers) -> None:
    first_engine, second_engine = workers
    first = SqlStore(first_engine, lease_seconds=1.0)  # BATON_TURN_LEASE=1
    second = SqlStore(second_engine, lease_seconds=1.0)
    thread_id = create_thread(first_engine)
    release = threading.Event()
    with first.turn_lock(thread_id):
        taken = _take_in_background(second, thread_id, release)
        assert not taken.wait(3.0), "the lease expired under a running turn"
    assert taken.wait(10)
    release.set()


def test_one_thread_renews_every_lease_of_the_process(workers) -> None:
    """Each lease once had a renewing thread of its own: 100 turns, 100 threads."""
    first_engine, second_engine = workers
    first = SqlStore(first_engine, lease_seconds=1.0)  # BATON_TURN_LEASE=1
    second = SqlStore(second_engine, lease_seconds=1.0)
    threads = [create_thread(first_engine) for _ in range(5)]
    release, held = threading.Event(), []
    for thread_id in threads:
        held.append(_take_in_background(first, thread_id, release))
    assert all(taken.wait(10) for taken in held)
    renewers = [t for t in threading.enumerate() if t.name.startswith("turn-lease")]
    assert len(renewers) == 1
    others = threading.Event()
    taken_by_second = [_take_in_background(second, thread_id, others) for thread_id in threads]
    time.sleep(3.0)  # three lease times
    assert not any(taken.is_set() for taken in taken_by_second), "a lease expired under its turn"
    release.set()
    assert all(taken.wait(10) for taken in taken_by_second)
    others.set()


def test_a_fenced_write_checks_its_lease_in_its_own_statements(workers) -> None:
    """Every write of a turn checked the lease with a statement of its own: about a third
    of a turn's statements. The counter's UPDATE and the thread's lock carry it now."""
    from sqlalchemy import event

    first_engine, _ = workers
    first = SqlStore(first_engine)
    thread_id = create_thread(first_engine)
    session = first.current_session(thread_id)
    statements: list[str] = []

    def count(conn, cursor, statement, *args) -> None:
        statements.append(statement)

    with first.turn_lock(thread_id):
        event.listen(first_engine, "before_cursor_execute", count)
        try:
            first.append(thread_id, session.id, [NewMessage(role="user", content="step")])
            first.write_file(thread_id, "a.py", "print(1)")
        finally:
            event.remove(first_engine, "before_cursor_execute", count)
    assert not [s for s in statements if s.lstrip().startswith("SELECT turn_lease")]
    assert len([s for s in statements if "turn_lease" in s]) == 2


def test_the_leases_of_a_dead_turn_process_are_freed_at_once(workers) -> None:
    """A killed turn process held its threads until their leases expired (15 s), so sends
    right after the kill waited that long for an acknowledgement."""
    from chat_app.db import lease

    first_engine, second_engine = workers
    dead, other = create_thread(first_engine), create_thread(first_engine)
    # A turn of the process that is about to die: never let go, no longer renewed (the
    # context is kept referenced: collecting it would let go).
    dying = lease.turn_lease(first_engine, dead, seconds=60, tag="deadbeef0001")
    dying.__enter__().stop()
    # Another turn process's turn.
    with lease.turn_lease(first_engine, other, seconds=60, tag="cafe00000002"):
        assert lease.release_leases_of(second_engine, "deadbeef0001") == 1
        # Taken at the first attempt: no wait for the 60 s the lease had left.
        with lease.turn_lease(second_engine, dead, seconds=60, sleep=_no_wait):
            pass
        # The live process's lease is untouched: taking it has to wait.
        with pytest.raises(_Waited), lease.turn_lease(second_engine, other, sleep=_no_wait):
            pass


class _Waited(Exception):
    """A lease could not be taken at once."""


def _no_wait(seconds: float) -> None:
    raise _Waited(seconds)


def test_a_wait_for_a_lease_gives_up_when_the_process_stops(workers, monkeypatch) -> None:
    """A worker stopping on SIGTERM waited, before exiting, for its turns that waited for
    another worker's lease: until that lease expired, when its holder was stopping too."""
    from chat_app.db import lease

    monkeypatch.setattr(lease, "_stopping", threading.Event())
    first_engine, second_engine = workers
    thread_id = create_thread(first_engine)
    outcome: list[BaseException | None] = []

    def wait_for_it() -> None:
        try:
            with lease.turn_lease(second_engine, thread_id, seconds=60):
                outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - the test reads what ended the wait
            outcome.append(exc)

    with lease.turn_lease(first_engine, thread_id, seconds=60):
        waiter = threading.Thread(target=wait_for_it, daemon=True)
        waiter.start()
        time.sleep(0.5)  # it polls, the lease held
        assert not outcome
        lease.stop_waiting()
        waiter.join(5)
    assert len(outcome) == 1 and isinstance(outcome[0], lease.ProcessStopping), outcome
