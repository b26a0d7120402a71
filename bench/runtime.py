"""Runtime costs, measured side by side in one run.

1. Middleware overhead on a non-triggering model call: the same agent step (a model that
   answers at once) with Baton's middleware stack vs plain ``create_agent``, on a 300-message
   context that is below every threshold.
2. Reset latency excluding model time: a full reset (facts, handoff prompt, validation,
   merge, commit through the store port) of a 2,000-message session, with a handoff model
   that answers instantly; on the in-memory store and on SQLite. Goal: p95 <= 50 ms.

Run: ``.venv/bin/python -m bench.runtime``
"""

from __future__ import annotations

import asyncio
import gc
import json
import tempfile
import time
from pathlib import Path

from langchain.agents import create_agent
from langchain_core.messages import AIMessage

from agent_core import (
    FunctionChatModel,
    InMemoryStore,
    NewMessage,
    SessionCoordinator,
    TurnSetup,
    build_context,
    make_policy,
)
from agent_core.accounting import ContextEstimator
from agent_core.runtime import build_middleware
from bench._shared import median, p95

MODEL = "anthropic:claude-sonnet-4-5"
HANDOFF = json.dumps(
    {
        "completed_work": ["Parser module written and tested"],
        "in_progress": ["CLI flags"],
        "remaining_tasks": ["Docs"],
        "key_decisions": ["Stream rows instead of loading the file"],
        "files_modified": ["parser/core.py"],
        "current_state_summary": "Parser done; CLI half done.",
    }
)


def _session_rows(n: int) -> list[NewMessage]:
    rows = [NewMessage(role="user", content="Build a CSV parser for invoices")]
    for i in range(n // 2):
        call = {
            "name": "run_command" if i % 3 else "write_file",
            "args": {"command": f"pytest -q tests/test_{i}.py"}
            if i % 3
            else {"path": f"pkg/mod_{i % 40}.py", "content": "x = 1\n" * 20},
            "id": f"c{i}",
        }
        rows.append(NewMessage(role="assistant", content=f"Step {i}", tool_calls=[call]))
        rows.append(
            NewMessage(
                role="tool",
                tool_call_id=f"c{i}",
                name=call["name"],
                content=f"{i} passed\n[exit status 0]" if i % 3 else "wrote file",
            )
        )
    return rows[:n]


def _setup(store, thread_id: str, model) -> TurnSetup:
    return TurnSetup(
        store=store,
        thread_id=thread_id,
        model=model,
        model_name=MODEL,
        policy=make_policy(window_override=10_000_000),
        system_prompt="bench",
    )


def bench_overhead(repeat: int = 40) -> tuple[float, float]:
    instant = FunctionChatModel(fn=lambda messages, **kw: AIMessage("done"), calls=[])
    store = InMemoryStore()
    session = store.current_session("t")
    store.append("t", session.id, _session_rows(300))
    setup = _setup(store, "t", instant)
    estimator = ContextEstimator(MODEL, window_override=10_000_000)
    context = build_context(store, session)
    plain = create_agent(instant, tools=[], system_prompt="bench")

    def with_baton() -> float:
        coordinator = SessionCoordinator(setup, estimator=estimator, emit=lambda e: None)
        coordinator.adopt(context)
        agent = create_agent(
            instant, tools=[], system_prompt="bench", middleware=build_middleware(coordinator)
        )
        start = time.perf_counter()
        asyncio.run(agent.ainvoke({"messages": context}))
        return time.perf_counter() - start

    def without() -> float:
        start = time.perf_counter()
        asyncio.run(plain.ainvoke({"messages": context}))
        return time.perf_counter() - start

    with_baton(), without()  # warm caches and imports
    a, b = [], []
    for _ in range(repeat):  # interleaved, so machine noise hits both alike
        a.append(with_baton())
        b.append(without())
    return median(a), median(b)


def bench_hooks(repeat: int = 200) -> float:
    """The middleware's own work per call (persist check, pending, measure, plan, todos),
    without langgraph's node scheduling: the part of the overhead Baton controls."""
    instant = FunctionChatModel(fn=lambda messages, **kw: AIMessage("done"), calls=[])
    store = InMemoryStore()
    session = store.current_session("t")
    store.append("t", session.id, _session_rows(300))
    setup = _setup(store, "t", instant)
    coordinator = SessionCoordinator(
        setup, estimator=ContextEstimator(MODEL, window_override=10_000_000), emit=lambda e: None
    )
    context = build_context(store, session)
    coordinator.adopt(context)
    stack = build_middleware(coordinator)
    state = {"messages": context}

    async def hooks() -> float:
        samples = []
        for _ in range(repeat):
            start = time.perf_counter()
            for middleware in stack:
                await middleware.abefore_model(state, None)
            samples.append(time.perf_counter() - start)
        return median(samples)

    return asyncio.run(hooks())


def bench_reset(store_factory, label: str, repeat: int = 20) -> list[float]:
    instant = FunctionChatModel(fn=lambda messages, **kw: HANDOFF, calls=[])
    samples = []
    store = store_factory()
    for n in range(repeat + 2):
        thread = f"reset-{label}-{n}"
        if hasattr(store, "create_thread_for_bench"):
            store.create_thread_for_bench(thread)
        session = store.current_session(thread)
        store.append(thread, session.id, _session_rows(2000))
        setup = _setup(store, thread, instant)
        coordinator = SessionCoordinator(
            setup, estimator=ContextEstimator(MODEL), emit=lambda e: None
        )
        context = build_context(store, session)
        gc.collect()  # garbage from building the 2,000-row fixture is not the reset's cost
        start = time.perf_counter()
        result = asyncio.run(
            coordinator.reset(context, trigger="auto", utilization=0.82, raise_errors=True)
        )
        elapsed = time.perf_counter() - start
        assert result is not None and coordinator.session.number == 2
        if n >= 2:  # the first resets warm tokenizer and query caches
            samples.append(elapsed)
    return samples


def _sqlite_store():
    from sqlmodel import Session

    from chat_app.db import repo
    from chat_app.db.engine import get_engine, write_engine
    from chat_app.db.migrate import migrate
    from chat_app.db.models import Thread
    from chat_app.db.store import SqlStore

    url = f"sqlite:///{Path(tempfile.mkdtemp()) / 'bench.db'}"
    migrate(url)
    engine = get_engine(url)
    store = SqlStore(engine)

    def create(thread_id: str) -> None:
        with Session(write_engine(engine)) as db:
            assistant = repo.ensure_default_assistant(session=db)
            db.add(Thread(id=thread_id, owner="bench", assistant_id=assistant.id, title="bench"))
            db.commit()

    store.create_thread_for_bench = create  # type: ignore[attr-defined]
    return store


def main() -> None:
    with_mw, without_mw = bench_overhead()
    print("1. middleware overhead, non-triggering call, 300-message context (median of 40)")
    print(f"   with Baton middleware  {with_mw * 1000:8.2f} ms")
    print(f"   plain create_agent     {without_mw * 1000:8.2f} ms")
    print(
        f"   ratio                  {with_mw / without_mw:8.2f}x  "
        f"(+{(with_mw - without_mw) * 1000:.2f} ms per call)"
    )
    hooks = bench_hooks()
    print(
        f"   of which Baton's hooks {hooks * 1000:8.2f} ms (the rest is langgraph running the "
        f"middleware nodes)"
    )
    print("2. reset latency excluding model time, 2,000-message session (20 resets)")
    for label, factory in (("in-memory store", InMemoryStore), ("SQLite store", _sqlite_store)):
        samples = bench_reset(factory, label)
        verdict = "meets" if p95(samples) <= 0.050 else "MISSES"
        print(
            f"   {label:16s} median {median(samples) * 1000:7.2f} ms   p95 {p95(samples) * 1000:7.2f} ms"
            f"   ({verdict} the 50 ms goal)"
        )


if __name__ == "__main__":
    main()
