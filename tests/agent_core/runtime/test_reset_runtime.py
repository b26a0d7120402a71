"""Resets inside a real agent loop (langchain create_agent + the simulator), on the
in-memory store: threshold, clean slate, pinned files, chaining, lineage, queued input."""

from __future__ import annotations

import asyncio

from langchain_core.messages import HumanMessage

from agent_core.context._build import build_context, context_kind
from agent_core.runtime._runner import ThreadRunner
from agent_core.storage._memory_store import InMemoryStore
from agent_core.testing import FunctionChatModel
from tests.agent_core.runtime_helpers import collect, make_setup, of_type, run

TASK = "Build a CSV parser for invoices"


async def test_a_long_run_resets_and_finishes_in_a_later_session() -> None:
    setup = make_setup()
    events = await run(setup, TASK)
    sessions = setup.store.sessions("t1")
    assert len(sessions) >= 2
    assert of_type(events, "context_reset", "reset_complete")
    assert events[-1]["type"] == "done"
    final = [m for m in setup.store.messages(sessions[-1].id) if m.role == "assistant"][-1]
    assert "All 4 todos are complete" in final.content


async def test_events_follow_the_protocol_order() -> None:
    setup = make_setup()
    events = await run(setup, TASK)
    phases = [e["data"]["event"] for e in of_type(events, "context_reset")]
    assert phases[:3] == ["reset_starting", "input_blocked", "reset_complete"]
    complete = of_type(events, "context_reset", "reset_complete")[0]["data"]
    assert complete["session_number"] == 2
    assert complete["old_session_id"] != complete["new_session_id"]
    assert set(complete["handoff"]) >= {
        "completed_work",
        "remaining_tasks",
        "current_state_summary",
    }


async def test_below_threshold_nothing_happens() -> None:
    setup = make_setup(window=200_000)
    events = await run(setup, TASK)
    assert not of_type(events, "context_reset")
    assert len(setup.store.sessions("t1")) == 1


async def test_reset_fires_at_exactly_the_threshold() -> None:
    from agent_core.policy import make_policy
    from agent_core.strategies._plan import plan

    policy = make_policy(context_strategy="reset")
    assert plan(0.80, policy, model_default="reset").action == "reset"
    assert plan(0.7999, policy, model_default="reset").action == "keep"


async def test_new_session_holds_no_old_message_only_handoff_pins_and_queue() -> None:
    store = InMemoryStore()
    store.write_file("t1", "PLAN.md", "# Plan\n1. parser\n2. tests\n")
    store.write_file("t1", "contracts/sprint-1.md", "Sprint 1: parser passes its tests")
    store.write_file("t1", "notes/scratch.md", "not pinned")
    setup = make_setup(store)
    await run(setup, TASK)
    first, second = store.sessions("t1")[:2]
    old_ids = {m.id for m in store.messages(first.id)}
    rows = store.messages(second.id)
    head = [r.role for r in rows[:3]]
    assert head == ["handoff", "pinned", "pinned"]
    assert "<handoff-context>" in rows[0].content
    pinned = "\n".join(r.content for r in rows[1:3])
    assert "PLAN.md" in pinned and "contracts/sprint-1.md" in pinned and "scratch" not in pinned
    context = build_context(store, second)
    assert not {m.id for m in context} & old_ids
    conversation = [m for m in context if context_kind(m) is None]
    assert TASK not in [m.content for m in conversation], "the old request is not replayed"


async def test_plan_file_is_kept_across_every_reset() -> None:
    store = InMemoryStore()
    store.write_file("t1", "PLAN.md", "# Plan\nship it")
    setup = make_setup(store, window=2200)
    await run(setup, TASK)
    sessions = store.sessions("t1")
    assert len(sessions) >= 3
    for session in sessions[1:]:
        assert any(
            r.role == "pinned" and "PLAN.md" in r.content for r in store.messages(session.id)
        )


async def test_consecutive_resets_chain_their_artifacts() -> None:
    store = InMemoryStore()
    setup = make_setup(store, window=2200)
    await run(setup, TASK)
    sessions = store.sessions("t1")
    assert len(sessions) >= 3
    for index, session in enumerate(sessions[1:], start=1):
        assert session.parent_id == sessions[index - 1].id
        assert session.number == index + 1
        assert session.handoff["session_number"] == index
    third = sessions[2].handoff
    assert third["previous_handoff"] == "HANDOFF-1.md"
    files = store.list_files("t1")
    assert {"HANDOFF-1.md", "HANDOFF-2.md"} <= set(files)


async def test_a_message_sent_during_a_reset_is_delivered_first_in_the_new_session() -> None:
    gate = asyncio.Event()
    started = asyncio.Event()
    from agent_core.providers._simulator import SimulatorChatModel

    simulator = SimulatorChatModel()

    def slow_handoff(messages, **kwargs):
        return simulator.invoke(
            messages, **{k: v for k, v in kwargs.items() if k in ("tools", "tool_choice")}
        )

    handoff_model = FunctionChatModel(fn=slow_handoff, calls=[], gate=gate, entered=started)
    store = InMemoryStore()
    setup = make_setup(store, handoff_model=handoff_model)
    runner = ThreadRunner()
    first = asyncio.create_task(collect(runner.submit(setup, TASK)))
    await asyncio.wait_for(started.wait(), 30)
    assert runner.is_busy("t1")
    queued = await collect(runner.submit(setup, "Also add a --strict flag"))
    assert [e["type"] for e in queued] == ["queued"]
    gate.set()
    events = await asyncio.wait_for(first, 60)
    complete = of_type(events, "context_reset", "reset_complete")[0]["data"]
    new_rows = store.messages(complete["new_session_id"])
    users = [r for r in new_rows if r.role == "user"]
    assert users[0].content == "Also add a --strict flag"
    first_conversation_row = next(r for r in new_rows if r.role not in ("handoff", "pinned"))
    assert first_conversation_row.content == "Also add a --strict flag"
    everywhere = [
        m
        for s in store.sessions("t1")
        for m in store.messages(s.id)
        if m.role == "user" and m.content == "Also add a --strict flag"
    ]
    assert len(everywhere) == 1
    assert store.pending("t1") == []


async def test_when_the_reset_fails_queued_messages_go_to_the_old_session() -> None:
    from agent_core.runtime._coordinator import SessionCoordinator

    store = InMemoryStore()
    setup = make_setup(store)

    async def broken_reset(self, *args, **kwargs):
        raise RuntimeError("database went away")

    original = SessionCoordinator._handoff_and_commit
    SessionCoordinator._handoff_and_commit = broken_reset
    try:
        store.enqueue_pending("t1", "queued before the run")
        events = await run(setup, TASK)
    finally:
        SessionCoordinator._handoff_and_commit = original
    failed = of_type(events, "context_reset", "reset_failed")
    assert failed and "database went away" in failed[0]["data"]["reason"]
    sessions = store.sessions("t1")
    assert len(sessions) == 1
    users = [m.content for m in store.messages(sessions[0].id) if m.role == "user"]
    assert users.count("queued before the run") == 1
    assert events[-1]["type"] == "done"


async def test_a_new_session_still_over_the_threshold_warns_instead_of_looping() -> None:
    store = InMemoryStore()
    store.write_file("t1", "PLAN.md", "plan " * 1500)  # ~1.5k tokens pinned
    setup = make_setup(store, window=1800)
    events = await run(setup, TASK)
    assert of_type(events, "warning")
    sessions = store.sessions("t1")
    # every session did some work: no reset of a session the model never answered in
    for session in sessions[:-1]:
        assert any(m.role == "assistant" for m in store.messages(session.id))
    assert events[-1]["type"] == "done"


async def test_malformed_handoff_output_still_resets_with_a_grounded_artifact() -> None:
    garbage = FunctionChatModel(fn=lambda messages, **kw: "{not json at all", calls=[])
    store = InMemoryStore()
    setup = make_setup(store, handoff_model=garbage)
    events = await run(setup, TASK)
    complete = of_type(events, "context_reset", "reset_complete")[0]["data"]
    handoff = complete["handoff"]
    assert "{not json" not in str(handoff)
    assert handoff["files_modified"], "grounded facts fill the artifact"
    assert complete["handoff_source"] in ("facts_only", "repaired")


async def test_user_text_is_never_lost_even_mid_session() -> None:
    setup = make_setup(window=200_000)
    await run(setup, "First request")
    await run(setup, "Second request")
    rows = [m for s in setup.store.sessions("t1") for m in setup.store.messages(s.id)]
    assert [m.content for m in rows if m.role == "user"] == ["First request", "Second request"]
    assert isinstance(
        build_context(setup.store, setup.store.current_session("t1"))[0], HumanMessage
    )


async def test_a_request_that_fills_the_context_is_answered_in_the_next_session() -> None:
    store = InMemoryStore()
    seen: list[list] = []

    def answer(messages, **kwargs):
        seen.append(list(messages))
        return "Noted."

    model = FunctionChatModel(fn=answer, calls=[])
    setup = make_setup(
        store,
        window=4000,
        model=model,
        context_strategy="reset",
        handoff_model=FunctionChatModel(fn=lambda m, **k: "", calls=[]),
    )
    await run(setup, "First: keep the parser in parser.py.")
    await run(setup, "Second: tests go in tests/.")
    request = ("Now add a --strict flag. " + "Here is the log you asked for. " * 420).strip()
    events = await run(setup, request)

    assert of_type(events, "context_reset", "reset_complete")
    first, second = store.sessions("t1")[:2]
    assert request in [m.content for m in store.messages(first.id) if m.role == "user"]
    carried = [m for m in store.messages(second.id) if m.role == "user"]
    assert [m.content for m in carried] == [request]  # verbatim, exactly once
    assert carried[0].meta["carried_over_from"]
    # The model's next call, in the new session, has the request itself to answer.
    last_call = seen[-1]
    assert last_call[-1].content == request
    assert any("<handoff-context>" in str(m.content) for m in last_call)
    reset_done = of_type(events, "context_reset", "reset_complete")[0]["data"]
    assert reset_done["delivered"] == []  # the timeline keeps it where it was typed


NOTE = '{"completed_work": ["Answered"], "remaining_tasks": ["--strict"], "current_state_summary": "ok"}'


async def test_the_carried_request_is_delivered_once_and_counted_once_in_later_handoffs() -> None:
    from agent_core.handoff._user_text import same_request

    store = InMemoryStore()
    model = FunctionChatModel(fn=lambda messages, **kwargs: "Noted.", calls=[])
    setup = make_setup(
        store,
        window=4000,
        model=model,
        context_strategy="reset",
        handoff_model=FunctionChatModel(fn=lambda m, **k: NOTE, calls=[]),
    )
    await run(setup, "First: keep the parser in parser.py.")
    await run(setup, "Second: tests go in tests/.")
    request = ("Now add a --strict flag. " + "Here is the log you asked for. " * 420).strip()
    await run(setup, request)
    await run(setup, "Thanks, that works.")
    await collect(ThreadRunner().handoff(setup, None, cancel=asyncio.Event()))

    first, second, third = store.sessions("t1")[:3]
    user_rows = [m for s in (second, third) for m in store.messages(s.id) if m.role == "user"]
    assert [m.content for m in user_rows].count(request) == 1  # answered, never carried again
    kept = third.handoff["user_messages"]
    assert sum(same_request(k, request) for k in kept) == 1
    # The first request is the goal, said once; the others follow it in order.
    assert third.handoff["goal"] == "First: keep the parser in parser.py."
    assert kept[0] == "Second: tests go in tests/." and kept[-1] == "Thanks, that works."
