"""Reliability under concurrency, crashes and hostile input, on SQLite and PostgreSQL.

Each test prints its figures; run with ``-s`` to see them.
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from agent_core import NewMessage
from agent_core.errors import MessageRejected, StoreError
from agent_core.validation import sanitize_text, validate_user_message
from chat_app.db.engine import get_engine, read_session
from chat_app.db.models import PendingMessage, Thread
from chat_app.db.store import SqlStore
from tests.chat_app.db.backends import create_thread, migrated_sqlite, pg_url  # noqa: F401
from tests.chat_app.db.workers import KILL_POINTS, send_pending

REPO_ROOT = Path(__file__).resolve().parents[2]
MESSAGES = 200


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return migrated_sqlite(tmp_path)
    return request.getfixturevalue("pg_url")


def _reset(store: SqlStore, thread_id: str) -> bool:
    """One reset of whatever session is open; False when another run got there first."""
    old = store.current_session(thread_id)
    try:
        store.commit_reset(
            thread_id,
            old_session_id=old.id,
            trigger="threshold",
            utilization=0.81,
            model="simulator",
            handoff={"n": old.number},
            handoff_path=f"HANDOFF-{old.number}.md",
            handoff_markdown="h",
            context=[NewMessage(role="handoff", content="h")],
        )
    except StoreError:
        return False
    return True


def _thread_state(url: str, store: SqlStore, thread_id: str) -> dict[str, Any]:
    """Check the invariants every thread must satisfy at rest; return what was found."""
    sessions = store.sessions(thread_id)
    assert [s.number for s in sessions] == list(range(1, len(sessions) + 1))
    assert [s.ended_at is None for s in sessions] == [False] * (len(sessions) - 1) + [True]
    assert all(s.parent_id == p.id for p, s in zip(sessions, sessions[1:], strict=False))
    rows = [m for s in sessions for m in store.messages(s.id)]
    assert [m.seq for m in rows] == list(range(1, len(rows) + 1)), "seq numbers lost or doubled"
    with read_session(get_engine(url)) as db:
        queued = list(db.exec(select(PendingMessage).where(PendingMessage.thread_id == thread_id)))
        thread = db.get(Thread, thread_id)
        assert thread is not None and thread.next_seq == len(rows) + 1
    delivered = [m for m in rows if "pending_id" in m.meta]
    delivered_ids = [m.meta["pending_id"] for m in delivered]
    assert len(delivered_ids) == len(set(delivered_ids)), "a pending message was delivered twice"
    assert {p.id for p in queued if p.delivered_session_id} == set(delivered_ids)
    # Sessions 2.. each start with their handoff row (no half-opened session).
    assert all(store.messages(s.id)[0].role == "handoff" for s in sessions[1:])
    return {"sessions": sessions, "rows": rows, "queued": queued, "delivered": delivered}


# 1. concurrent senders while resets happen ------------------------------------------------
def _check_delivery_order(state: dict[str, Any], clients: list[str], per_client: int) -> None:
    delivered = state["delivered"]
    assert len(delivered) == MESSAGES and not [
        p for p in state["queued"] if not p.delivered_session_id
    ]
    assert sorted(m.content for m in delivered) == sorted(
        f"{c}-{i:03d}" for c in clients for i in range(per_client)
    ), "every message stored exactly once"
    pending_seq = {p.id: p.seq for p in state["queued"]}
    in_timeline = [pending_seq[m.meta["pending_id"]] for m in delivered]
    assert in_timeline == sorted(in_timeline), "delivery order differs from enqueue order"
    for client in clients:
        mine = [m.content for m in delivered if m.content.startswith(f"{client}-")]
        assert mine == sorted(mine), f"{client}'s messages were reordered"


def _reset_until(store: SqlStore, thread_id: str, done: threading.Event) -> dict[str, int]:
    counts = {"resets": 0, "lost_races": 0}
    while not done.is_set():
        counts["resets" if _reset(store, thread_id) else "lost_races"] += 1
    _reset(store, thread_id)  # deliver whatever arrived after the last reset
    counts["resets"] += 1
    return counts


def _start_resetters(
    store: SqlStore, thread_id: str, done: threading.Event, count: int = 2
) -> tuple[list[threading.Thread], dict[str, int]]:
    """``count`` clients resetting the thread in a loop; two of them race for each session."""
    totals = {"resets": 0, "lost_races": 0}
    mutex = threading.Lock()

    def run() -> None:
        counts = _reset_until(store, thread_id, done)
        with mutex:
            for key, value in counts.items():
                totals[key] += value

    resetters = [threading.Thread(target=run) for _ in range(count)]
    for resetter in resetters:
        resetter.start()
    return resetters, totals


def _report(label: str, started: float, counts: dict[str, int], state: dict[str, Any]) -> None:
    elapsed = time.perf_counter() - started
    print(
        f"\n[{label}] {MESSAGES} pending messages, {counts['resets']} resets "
        f"({counts['lost_races']} stale attempts refused), {len(state['sessions'])} sessions, "
        f"{len(state['rows'])} rows, {elapsed:.2f} s, {MESSAGES / elapsed:.0f} msg/s"
    )


@pytest.mark.slow
def test_concurrent_senders_during_resets_sqlite_threads(tmp_path: Path) -> None:
    url = migrated_sqlite(tmp_path)
    store = SqlStore(get_engine(url))
    thread_id = create_thread(get_engine(url))
    clients, per_client = [f"c{i}" for i in range(4)], MESSAGES // 4
    done, started = threading.Event(), time.perf_counter()
    senders = [
        threading.Thread(target=send_pending, args=(url, thread_id, c, per_client)) for c in clients
    ]
    for sender in senders:
        sender.start()
    resetters, counts = _start_resetters(store, thread_id, done)
    for sender in senders:
        sender.join()
    done.set()
    for resetter in resetters:
        resetter.join()
    state = _thread_state(url, store, thread_id)
    _check_delivery_order(state, clients, per_client)
    _report("sqlite, 4 client threads", started, counts, state)


@pytest.mark.slow
@pytest.mark.postgres
def test_concurrent_senders_during_resets_postgres_processes(pg_url: str) -> None:  # noqa: F811
    store = SqlStore(get_engine(pg_url))
    thread_id = create_thread(get_engine(pg_url))
    clients, per_client = ["w0", "w1"], MESSAGES // 2
    context = multiprocessing.get_context("spawn")
    workers = [
        context.Process(target=send_pending, args=(pg_url, thread_id, c, per_client))
        for c in clients
    ]
    done, started = threading.Event(), time.perf_counter()
    for worker in workers:
        worker.start()
    resetters, counts = _start_resetters(store, thread_id, done)
    for worker in workers:
        worker.join(120)
    done.set()
    for resetter in resetters:
        resetter.join()
    assert [w.exitcode for w in workers] == [0, 0]
    state = _thread_state(pg_url, store, thread_id)
    _check_delivery_order(state, clients, per_client)
    _report("postgres, 2 worker processes", started, counts, state)


# 2. a worker killed at every step of a reset ------------------------------------------------
def _run_reset_worker(url: str, thread_id: str, kill_at: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tests.chat_app.db.workers", "reset", url, thread_id, kill_at],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        # On PostgreSQL a killed worker's turn lease holds the thread until it expires.
        env={**os.environ, "BATON_TURN_LEASE": "2"},
    )


def _lock_is_free(store: SqlStore, thread_id: str) -> bool:
    got = threading.Event()

    def take() -> None:
        with store.turn_lock(thread_id):
            got.set()

    threading.Thread(target=take, daemon=True).start()
    return got.wait(10)


@pytest.mark.slow
@pytest.mark.parametrize("kill_at", KILL_POINTS)
def test_reset_killed_at_any_step_leaves_a_consistent_thread(url: str, kill_at: str) -> None:
    engine = get_engine(url)
    store, thread_id = SqlStore(engine), create_thread(engine)
    first = store.current_session(thread_id)
    store.append(thread_id, first.id, [NewMessage(role="user", content=f"m{i}") for i in range(3)])
    queued = [store.enqueue_pending(thread_id, f"queued {i}") for i in range(3)]

    killed = _run_reset_worker(url, thread_id, kill_at)
    assert killed.returncode == -9, killed.stderr
    state = _thread_state(url, store, thread_id)
    committed = kill_at == "committed"
    assert len(state["sessions"]) == (2 if committed else 1), "half-written session"
    assert [m.content for m in store.messages(first.id)] == ["m0", "m1", "m2"]
    assert len(state["delivered"]) == (3 if committed else 0), "pending partly delivered"
    assert (store.read_file(thread_id, "HANDOFF-1.md") is not None) == committed
    assert _lock_is_free(store, thread_id), "the killed worker left the thread locked"

    again = _run_reset_worker(url, thread_id, "none")
    assert again.returncode == 0, again.stderr
    state = _thread_state(url, store, thread_id)
    assert len(state["sessions"]) == (3 if committed else 2)
    assert sorted(m.meta["pending_id"] for m in state["delivered"]) == sorted(p.id for p in queued)
    print(f"\n[{url.split(':')[0]}] killed at {kill_at}: consistent; reset re-run completed")


# 3. hostile input -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("x" * (10 * 1024 * 1024), "too large (10.0 MB"),
        ("before\x00after", "NUL bytes"),
        ("half a pair \ud83d here", "unpaired UTF-16 surrogates"),
    ],
)
def test_user_input_that_cannot_be_stored_is_refused_with_a_reason(text: str, reason: str) -> None:
    with pytest.raises(MessageRejected, match=reason.replace("(", r"\(")):
        validate_user_message(text)


def test_tool_output_is_stored_sanitized_and_whole(url: str) -> None:
    engine = get_engine(url)
    store, thread_id = SqlStore(engine), create_thread(engine)
    session = store.current_session(thread_id)
    huge = ("log line \x00 with a lone \udc80 surrogate\n" * 300_000)[: 10 * 1024 * 1024]
    started = time.perf_counter()
    rows = store.append(
        thread_id,
        session.id,
        [
            NewMessage(role="tool", content=huge, tool_call_id="c1"),
            NewMessage(role="user", content="ok"),
        ],
    )
    elapsed = time.perf_counter() - started
    stored = store.messages(session.id)
    assert stored == rows and len(stored) == 2
    assert stored[0].content == sanitize_text(huge) and len(stored[0].content) == len(huge)
    print(
        f"\n[{url.split(':')[0]}] 10 MB tool output with NUL/surrogates stored in {elapsed:.2f} s"
    )


def test_a_batch_the_database_refuses_stores_nothing(url: str) -> None:
    engine = get_engine(url)
    store, thread_id = SqlStore(engine), create_thread(engine)
    session = store.current_session(thread_id)
    store.append(thread_id, session.id, [NewMessage(role="user", content="first")])
    too_long_role_name = NewMessage(role="tool", content="x" * 1000, name="n" * 10_000)
    batch = [NewMessage(role="user", content="kept?"), too_long_role_name]
    if url.startswith("sqlite"):
        # SQLite does not enforce VARCHAR lengths; an integer overflow fails the batch instead.
        batch[1] = NewMessage(role="tool", content="x", token_count=2**70)
    with pytest.raises(StoreError, match="nothing was stored"):
        store.append(thread_id, session.id, batch)
    assert [m.content for m in store.messages(session.id)] == ["first"]
    [after] = store.append(thread_id, session.id, [NewMessage(role="user", content="second")])
    assert after.seq == 2, "a failed batch consumed seq numbers"
