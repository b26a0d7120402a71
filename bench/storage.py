"""Timeline loading: the windowed load the chat page uses vs a naive full load.

Builds a thread of 10,000 messages in 50 sessions (SQLite in a temporary directory, and
PostgreSQL when ``BATON_TEST_PG_URL`` or the default local server answers), then times,
side by side in one run, loading the last 100 messages plus the session index against
loading every message and session. Prints medians, p95, the ratio and the query plans.

Run: ``.venv/bin/python -m bench.storage``
"""

from __future__ import annotations

import os
import random
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import col, select

from agent_core import NewMessage
from bench._shared import median, p95, time_calls
from chat_app.db import repo
from chat_app.db.engine import dispose_engine, get_engine, read_session, write_session
from chat_app.db.migrate import migrate
from chat_app.db.models import ChatSession, Message
from chat_app.db.settings import normalize_url
from chat_app.db.store import SqlStore

SESSIONS, PER_SESSION, WINDOW = 50, 200, 100
REPEAT_WINDOW, REPEAT_FULL = 200, 30
GOAL_WINDOW_MS, GOAL_RATIO = 20.0, 20.0
WORDS = ("plan", "test", "patch", "file", "error", "fix", "run", "commit", "diff", "review")


def build_thread(engine: Engine) -> str:
    """A thread of SESSIONS x PER_SESSION messages of a few hundred characters each."""
    rng = random.Random(6)
    words = [*WORDS]
    with write_session(engine) as session:
        assistant = repo.ensure_default_assistant(session=session)
        thread_id = repo.create_thread(session=session, owner="bench", assistant_id=assistant.id).id
    store = SqlStore(engine)
    current = store.current_session(thread_id)
    for number in range(SESSIONS):
        batch = [
            NewMessage(
                role="user" if i % 2 == 0 else "assistant",
                content=" ".join(rng.choices(words, k=rng.randint(20, 80))),
                token_count=rng.randint(20, 200),
            )
            for i in range(PER_SESSION)
        ]
        store.append(thread_id, current.id, batch)
        if number + 1 < SESSIONS:
            current, _ = store.commit_reset(
                thread_id,
                old_session_id=current.id,
                trigger="threshold",
                utilization=0.8,
                model="simulator",
                handoff={"session_number": number + 1, "summary": "x" * 500},
                handoff_path=f"HANDOFF-{number + 1}.md",
                handoff_markdown="h",
                context=[],
            )
    return thread_id


def window_load(engine: Engine, thread_id: str) -> Callable[[], object]:
    def load() -> object:
        with read_session(engine) as session:
            rows = repo.timeline_window(session=session, thread_id=thread_id, limit=WINDOW)
            index = repo.session_index(session=session, thread_id=thread_id)
        assert len(rows) == WINDOW and len(index) == SESSIONS
        return rows, index

    return load


def full_load(engine: Engine, thread_id: str) -> Callable[[], object]:
    def load() -> object:
        with read_session(engine) as session:
            rows = list(
                session.exec(
                    select(Message).where(Message.thread_id == thread_id).order_by(col(Message.seq))
                )
            )
            sessions = list(
                session.exec(select(ChatSession).where(ChatSession.thread_id == thread_id))
            )
        assert len(rows) == SESSIONS * PER_SESSION and len(sessions) == SESSIONS
        return rows, sessions

    return load


def query_plans(engine: Engine, thread_id: str) -> list[str]:
    """EXPLAIN output for the exact statements the window load sends."""
    captured: list[tuple[str, object]] = []

    def capture(_conn, _cursor, statement, parameters, _context, _many) -> None:  # type: ignore[no-untyped-def]
        captured.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", capture)
    try:
        window_load(engine, thread_id)()
    finally:
        event.remove(engine, "before_cursor_execute", capture)
    prefix = "EXPLAIN QUERY PLAN " if engine.dialect.name == "sqlite" else "EXPLAIN "
    plans = []
    with engine.connect() as connection:
        for statement, parameters in captured:
            if not statement.lstrip().upper().startswith("SELECT"):
                continue
            result = connection.exec_driver_sql(prefix + statement, parameters)  # type: ignore[arg-type]
            lines = [" | ".join(str(v) for v in row[-1:]) for row in result]
            plans.append(" ".join(statement.split())[:90] + "...\n      " + "\n      ".join(lines))
    return plans


def run(label: str, url: str) -> None:
    migrate(url)
    engine = get_engine(url)
    thread_id = build_thread(engine)
    if engine.dialect.name == "postgresql":
        with engine.connect() as connection:
            connection.exec_driver_sql("ANALYZE")
            connection.commit()
    window, full = window_load(engine, thread_id), full_load(engine, thread_id)
    window(), full()  # warm caches and the connection pool
    # Interleave the two so drift in machine load hits both alike.
    window_samples: list[float] = []
    full_samples: list[float] = []
    for _ in range(REPEAT_FULL):
        window_samples += time_calls(window, repeat=REPEAT_WINDOW // REPEAT_FULL)
        full_samples += time_calls(full, repeat=1)
    w_med, f_med = median(window_samples) * 1000, median(full_samples) * 1000
    ratio = f_med / w_med
    print(f"\n== {label}: {SESSIONS * PER_SESSION} messages in {SESSIONS} sessions ==")
    print(
        f"window load (last {WINDOW} + session index): median {w_med:.2f} ms, p95 {p95(window_samples) * 1000:.2f} ms  (n={len(window_samples)})"
    )
    print(
        f"full load (all messages + sessions):          median {f_med:.2f} ms, p95 {p95(full_samples) * 1000:.2f} ms  (n={len(full_samples)})"
    )
    print(
        f"ratio full/window: {ratio:.1f}x  (goal >= {GOAL_RATIO:.0f}x: {'met' if ratio >= GOAL_RATIO else 'MISSED'})"
    )
    if engine.dialect.name == "sqlite":
        print(
            f"window <= {GOAL_WINDOW_MS:.0f} ms on SQLite: {'met' if w_med <= GOAL_WINDOW_MS else 'MISSED'}"
        )
    print("query plans of the window load:")
    for plan in query_plans(engine, thread_id):
        print("  - " + plan)


def pg_url_if_reachable() -> str | None:
    import psycopg

    base = normalize_url(
        os.environ.get("BATON_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
    )
    plain = base.replace("postgresql+psycopg://", "postgresql://", 1)
    try:
        psycopg.connect(plain, connect_timeout=3).close()
    except psycopg.OperationalError as exc:
        print(
            f"\n(PostgreSQL skipped: not reachable at {plain.split('@')[-1]}: {str(exc).strip()[:80]})"
        )
        return None
    return base


def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        url = f"sqlite:///{Path(directory) / 'bench.db'}"
        run("SQLite", url)
        dispose_engine(url)
    base = pg_url_if_reachable()
    if base is None:
        return
    import psycopg

    schema = f"baton_bench_{uuid.uuid4().hex[:8]}"
    plain = base.replace("postgresql+psycopg://", "postgresql://", 1)
    with psycopg.connect(plain, autocommit=True) as admin:
        admin.execute(f'CREATE SCHEMA "{schema}"')
    url = f"{base}{'&' if '?' in base else '?'}options=-csearch_path%3D{schema}"
    try:
        run("PostgreSQL", url)
    finally:
        dispose_engine(url)
        with psycopg.connect(plain, autocommit=True) as admin:
            admin.execute(f'DROP SCHEMA "{schema}" CASCADE')


if __name__ == "__main__":
    main()
