"""Compaction never makes the context bigger, and what summarizing (and handing off) costs
is metered like any model call: stored with the marker or the session, in the events."""

from __future__ import annotations

import asyncio

from langchain_core.messages import AIMessage, SystemMessage

from agent_core.accounting._tokens import TokenCounter
from agent_core.context._build import build_context
from agent_core.context._compaction import (
    COMPACTION_PROMPT,
    summarize_for_compaction,
    worth_keeping,
)
from agent_core.providers._simulator import SimulatorChatModel
from agent_core.runtime._runner import ThreadRunner
from agent_core.storage._memory_store import InMemoryStore
from agent_core.storage._records import NewMessage
from agent_core.testing import FunctionChatModel
from tests.agent_core.runtime_helpers import collect, make_setup, of_type, run

TASK = "Build a CSV parser for invoices"
WORDY = " ".join(f"detail{n}" for n in range(400))  # far longer than a short session


def _is_summary_request(messages) -> bool:
    return (
        bool(messages)
        and isinstance(messages[0], SystemMessage)
        and messages[0].content == COMPACTION_PROMPT
    )


def _summarizing(summary: str, asked: list, *, usage: dict | None = None):
    """The simulator for the agent's turns; ``summary`` for every compaction request."""
    simulator = SimulatorChatModel()

    def answer(messages, **kwargs):
        if _is_summary_request(messages):
            asked.append(messages)
            return AIMessage(content=summary, usage_metadata=usage) if usage else summary
        return simulator._generate(messages, **kwargs).generations[0].message

    return FunctionChatModel(fn=answer, calls=[])


def _short_session(store: InMemoryStore) -> None:
    session = store.current_session("t1")
    store.append(
        "t1",
        session.id,
        [
            NewMessage(role="user", content="Add a --verbose flag"),
            NewMessage(role="assistant", content="Done."),
            NewMessage(role="user", content="Thanks, now the tests"),
            NewMessage(role="assistant", content="The tests pass."),
        ],
    )


def test_a_summary_is_worth_keeping_only_when_smaller() -> None:
    assert worth_keeping(78, 40)
    assert not worth_keeping(78, 91) and not worth_keeping(78, 78)


async def test_compact_now_discards_a_summary_that_is_not_smaller() -> None:
    store = InMemoryStore()
    _short_session(store)
    asked: list = []
    usage = {"input_tokens": 412, "output_tokens": 533, "total_tokens": 945}
    setup = make_setup(
        store, window=200_000, keep_recent_tokens=10, model=_summarizing(WORDY, asked, usage=usage)
    )
    session = store.current_session("t1")
    before = build_context(store, session)
    events = await collect(ThreadRunner().compact_now(setup))

    assert len(asked) == 1
    assert store.context_edits(session.id) == []  # nothing stored as a context edit
    assert [m.content for m in build_context(store, session)] == [m.content for m in before]
    [event] = of_type(events, "compaction")
    data = event["data"]
    assert data["discarded"] is True and data["tokens_after"] >= data["tokens_before"]
    assert (data["call_input_tokens"], data["call_output_tokens"]) == (412, 533)
    assert "not smaller" in data["message"]
    [marker] = [r for r in store.messages(session.id) if r.role == "event"]
    assert marker.id == data["marker_id"] and marker.meta["event"] == "compaction_discarded"
    assert marker.meta["usage"] == usage  # a reload shows what the call cost
    assert of_type(events, "compact")[-1]["data"]["status"] == "discarded"


async def test_a_turn_does_not_ask_again_for_a_summary_it_discarded() -> None:
    store = InMemoryStore()
    asked: list = []
    # A small window fills within the first todo; the kept recent part leaves little to
    # summarize, far less than the summary this model writes.
    setup = make_setup(
        store,
        window=2600,
        context_strategy="compact",
        compact_threshold=0.3,
        mask_threshold=None,
        keep_recent_tokens=500,
        model=_summarizing(WORDY, asked),
    )
    events = await run(setup, TASK)
    discarded = [e for e in of_type(events, "compaction") if e["data"].get("discarded")]
    assert len(discarded) == 1 and len(asked) == 1
    session = store.current_session("t1")
    assert not [e for e in store.context_edits(session.id) if e.kind == "compaction"]
    # The marker said why: no "could not get below the threshold" warning on top of it.
    assert not [
        e for e in of_type(events, "warning") if "compact threshold" in e["data"]["message"]
    ]


async def test_a_kept_compaction_and_a_reset_store_what_their_calls_cost() -> None:
    store = InMemoryStore()
    asked: list = []
    usage = {"input_tokens": 1800, "output_tokens": 60, "total_tokens": 1860}
    setup = make_setup(
        store,
        window=6000,
        model_name="anthropic:claude-opus-4-1",
        keep_recent_tokens=600,
        model=_summarizing("Parser started; tests next.", asked, usage=usage),
    )
    events = await run(setup, TASK)
    kept = [e for e in of_type(events, "compaction") if not e["data"].get("discarded")]
    assert kept and kept[0]["data"]["call_input_tokens"] == 1800
    markers = [
        r
        for r in store.messages(store.current_session("t1").id)
        if r.role == "event" and r.meta.get("event") == "compaction"
    ]
    assert markers and all(m.meta["usage"] == usage for m in markers)

    handed = make_setup(InMemoryStore(), window=200_000)
    await run(handed, TASK)
    events = await collect(ThreadRunner().handoff(handed, None, cancel=asyncio.Event()))
    [complete] = of_type(events, "context_reset", "reset_complete")
    opening = handed.store.messages(handed.store.current_session("t1").id)[0]
    assert opening.role == "handoff"
    spent = opening.meta["usage"]
    assert spent["input_tokens"] == complete["data"]["handoff_input_tokens"] > 0
    assert spent["output_tokens"] == complete["data"]["handoff_tokens"] > 0


async def test_the_facts_fallback_is_free_and_a_counted_call_says_so() -> None:
    counter = TokenCounter("gpt-4")

    def broken(messages, **_):
        raise RuntimeError("provider down")

    failed = await summarize_for_compaction(
        FunctionChatModel(fn=broken, calls=[]),
        [AIMessage(content="x")],
        max_tokens=200,
        count_text=counter.count_text,
    )
    assert failed.source == "facts" and (failed.input_tokens, failed.output_tokens) == (0, 0)
    counted = await summarize_for_compaction(
        FunctionChatModel(fn=lambda m, **_: "A short summary.", calls=[]),
        [AIMessage(content="x")],
        max_tokens=200,
        count_text=counter.count_text,
    )
    assert counted.source == "model" and not counted.reported
    assert counted.input_tokens > 0 and counted.output_tokens == counter.count_text(
        "A short summary."
    )
