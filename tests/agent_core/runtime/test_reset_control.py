"""The user's control over resets in a real agent loop on the in-memory store: utilization
recorded per model call, "Not yet", "Compact now" and the review of a handoff."""

from __future__ import annotations

import asyncio
import dataclasses

from agent_core.errors import StoreError
from agent_core.handoff._artifact import HandoffArtifact
from agent_core.policy import make_policy
from agent_core.runtime._runner import ThreadRunner
from agent_core.runtime._user_control import (
    defer_next_trigger,
    pending_review,
    request_handoff,
    resolve_review,
)
from agent_core.storage._memory_store import InMemoryStore
from agent_core.storage._records import NewMessage
from agent_core.strategies._plan import Decision
from agent_core.strategies._reset_control import (
    DEFER_LIMIT,
    context_samples,
    deferral_pending,
    deferred,
    handoff_requested,
    warn_threshold,
)
from agent_core.testing import FunctionChatModel
from tests.agent_core.runtime_helpers import collect, make_setup, of_type, run

TASK = "Build a CSV parser for invoices"


def _rows(store, thread_id="t1"):
    return [row for s in store.sessions(thread_id) for row in store.messages(s.id)]


async def test_every_model_call_stores_the_utilization_it_was_sent_at() -> None:
    setup = make_setup()
    await run(setup, TASK)
    replies = [r for r in _rows(setup.store) if r.role == "assistant"]
    samples = context_samples(_rows(setup.store))
    assert len(samples) == len(replies) > 5
    fractions = [sample["fraction"] for _, sample in samples]
    assert all(0 < f < 1.2 for f in fractions)
    assert all(sample["window"] == 2500 for _, sample in samples)
    # The context falls back after a reset: the first call of session 2 is below the last of 1.
    first_of_two = next(
        f
        for (row, _), f in zip(samples, fractions, strict=True)
        if row.session_id == setup.store.sessions("t1")[1].id
    )
    last_of_one = [
        f
        for (row, _), f in zip(samples, fractions, strict=True)
        if row.session_id == setup.store.sessions("t1")[0].id
    ][-1]
    assert first_of_two < last_of_one


def test_warn_threshold_defaults_ten_points_below_the_trigger() -> None:
    assert warn_threshold(make_policy(context_strategy="reset"), "reset") == 0.7
    assert warn_threshold(make_policy(context_strategy="compact"), "reset") == 0.4
    assert warn_threshold(make_policy(context_strategy="auto"), "compact") == 0.4
    assert warn_threshold(make_policy(warn_threshold=0.6), "reset") == 0.6


def test_a_deferral_never_goes_past_the_hard_limit() -> None:
    store = InMemoryStore()
    session = store.current_session("t1")
    store.append("t1", session.id, [NewMessage(role="event", meta={"event": "defer"})])
    rows = store.messages(session.id)
    near = Decision(action="reset", strategy="reset", utilization=0.85, reason="")
    full = near.model_copy(update={"utilization": DEFER_LIMIT})
    assert deferred(near, rows)
    assert not deferred(full, rows)
    assert not deferred(near.model_copy(update={"action": "keep"}), rows)


def test_one_deferral_waits_at_a_time_until_an_automatic_step_uses_it() -> None:
    store = InMemoryStore()
    session = store.current_session("t1")
    assert defer_next_trigger(store, "t1") is not None
    assert deferral_pending(store.messages(session.id))
    assert defer_next_trigger(store, "t1") is None  # one deferral at a time
    store.append("t1", session.id, [NewMessage(role="event", meta={"event": "deferred"})])
    assert not deferral_pending(store.messages(session.id))


async def test_not_yet_skips_exactly_one_automatic_reset() -> None:
    plain = make_setup(context_strategy="reset")
    await run(plain, TASK)
    first_reset = plain.store.sessions("t1")[1].utilization

    setup = make_setup(context_strategy="reset")
    defer_next_trigger(setup.store, "t1")
    events = await run(setup, TASK)
    first, second = setup.store.sessions("t1")[:2]
    skipped = [r for r in setup.store.messages(first.id) if r.meta.get("event") == "deferred"]
    assert len(skipped) == 1
    assert skipped[0].meta["action"] == "reset"
    # The reset came one model call later, at a fuller context, and only once was skipped.
    assert second.trigger == "auto" and second.utilization > first_reset
    assert any(
        e["type"] == "message" and e["data"]["meta"].get("event") == "deferred" for e in events
    )


async def test_compact_now_compacts_below_every_threshold() -> None:
    setup = make_setup(window=200_000, context_strategy="compact", keep_recent_tokens=200)
    await run(setup, TASK)
    session = setup.store.current_session("t1")
    kinds = [e.kind for e in setup.store.context_edits(session.id)]
    assert "compaction" not in kinds
    events = await collect(ThreadRunner().compact_now(setup))
    assert of_type(events, "compaction")
    assert events[-1] == {
        "type": "compact",
        "data": {"status": "done", "message": "Compacted the earlier part of this session"},
    }
    assert [e.kind for e in setup.store.context_edits(session.id)] == [*kinds, "compaction"]


async def test_compact_now_on_an_empty_chat_says_there_is_nothing() -> None:
    events = await collect(ThreadRunner().compact_now(make_setup()))
    assert events[-1]["data"]["status"] == "nothing"


async def test_a_reviewed_handoff_is_what_the_next_session_sees() -> None:
    setup = dataclasses.replace(make_setup(context_strategy="reset"), review_handoffs=True)
    runner = ThreadRunner()
    events = await collect(runner.submit(setup, TASK))
    sessions = setup.store.sessions("t1")
    assert len(sessions) == 2, "the run stops at the reset and waits"
    assert of_type(events, "context_reset", "reset_complete")[0]["data"]["review"] is True
    waiting = pending_review(setup.store, sessions[1])
    assert waiting is not None
    assert not [r for r in setup.store.messages(sessions[1].id) if r.role == "assistant"]

    # A message sent meanwhile waits with the review (stored, not delivered, not lost).
    events = await collect(runner.submit(setup, "Also handle semicolons"))
    assert of_type(events, "warning")[-1]["data"]["reason"] == "review_pending"
    assert of_type(events, "queued")[-1]["data"]["content"] == "Also handle semicolons"
    assert [p.content for p in setup.store.pending("t1")] == ["Also handle semicolons"]

    edited = waiting.model_copy(
        update={
            "next_step": "Write the EDITED-NEXT-STEP test first",
            "constraints": [*waiting.constraints, "No pandas"],
        }
    )
    resolve_review(setup.store, "t1", edited=edited)
    seen: list = []

    def answer(messages, **_):
        seen.append(messages)
        return "Continuing from the reviewed handoff."

    model = FunctionChatModel(fn=answer, calls=[])
    resumed = dataclasses.replace(setup, model=model, handoff_model=model)
    await collect(runner.drain(resumed, cancel=asyncio.Event(), resume=True))
    text = "\n".join(str(m.content) for m in seen[0])
    assert "Write the EDITED-NEXT-STEP test first" in text
    assert "No pandas" in text
    assert f"## Next Step\n\n{waiting.next_step}" not in text
    assert f"## Next Step\n\n{edited.next_step}" in text
    assert "Also handle semicolons" in text
    assert pending_review(setup.store, setup.store.current_session("t1")) is None
    # Both versions are kept: the session and the file hold the original, the edit the new one.
    session = setup.store.sessions("t1")[1]
    assert HandoffArtifact.model_validate(session.handoff).next_step == waiting.next_step
    assert setup.store.context_edits(session.id)[-1].artifact["next_step"] == edited.next_step
    try:
        resolve_review(setup.store, "t1", edited=None)
    except StoreError as exc:
        assert "No handoff waits" in str(exc)
    else:
        raise AssertionError("a settled review was settled twice")


async def test_a_discarded_handoff_leaves_the_session_without_it() -> None:
    setup = dataclasses.replace(make_setup(context_strategy="reset"), review_handoffs=True)
    runner = ThreadRunner()
    await collect(runner.submit(setup, TASK))
    resolve_review(setup.store, "t1", edited=None, discard=True)
    seen: list = []
    model = FunctionChatModel(fn=lambda messages, **_: seen.append(messages) or "ok", calls=[])
    await collect(
        runner.drain(dataclasses.replace(setup, model=model), cancel=asyncio.Event(), resume=True)
    )
    assert seen and not any("<handoff-context>" in str(m.content) for m in seen[0])


async def test_a_requested_handoff_comes_at_the_next_step_once() -> None:
    setup = make_setup(window=200_000, context_strategy="reset")
    await run(setup, TASK)
    assert len(setup.store.sessions("t1")) == 1  # nothing near a threshold
    assert request_handoff(setup.store, "t1") is not None
    assert request_handoff(setup.store, "t1") is None  # one request at a time
    await run(setup, "Now add a test for empty files")
    sessions = setup.store.sessions("t1")
    assert len(sessions) == 2
    assert sessions[1].trigger == "manual"
    assert handoff_requested(setup.store.marks(sessions[0].id))  # asked there, taken by it
    assert not handoff_requested(setup.store.marks(sessions[1].id))


async def test_a_handoff_asked_for_during_the_turns_last_step_comes_as_the_turn_ends() -> None:
    """ "Hand off now" clicked while the final answer is being written: the turn has no next
    step, so it hands off as it ends, not at the next message's first step."""
    setup = make_setup(window=200_000, context_strategy="reset")

    def answer(messages, **_):
        request_handoff(setup.store, "t1")  # the click, during the turn's one model call
        return "The parser is done."

    model = FunctionChatModel(fn=answer, calls=[])
    # The handoff is written by the setup's own model (this one only answers the task).
    setup = dataclasses.replace(
        setup, model=model, handoff_model=setup.handoff_model or setup.model
    )
    events = await run(setup, TASK)
    sessions = setup.store.sessions("t1")
    assert len(sessions) == 2 and sessions[1].trigger == "manual"
    assert not handoff_requested(setup.store.marks(sessions[1].id))
    assert of_type(events, "context_reset", "reset_complete")
