"""/handoff [focus]: nothing to hand off, cancel at any point, failure, success with lineage."""

from __future__ import annotations

import asyncio

from agent_core.runtime._runner import ThreadRunner
from agent_core.storage._memory_store import InMemoryStore
from agent_core.testing import FunctionChatModel
from tests.agent_core.runtime_helpers import collect, make_setup, of_type, run


def _status(events: list[dict]) -> list[tuple[str, str]]:
    return [(e["data"]["status"], e["data"]["message"]) for e in of_type(events, "handoff")]


async def test_fewer_than_two_messages_is_nothing_to_hand_off() -> None:
    setup = make_setup(window=200_000)
    events = await collect(ThreadRunner().handoff(setup, None, cancel=asyncio.Event()))
    assert _status(events) == [("nothing", "Nothing to hand off (no messages yet)")]
    assert len(setup.store.sessions("t1")) == 1


async def test_success_starts_a_new_session_with_lineage_and_the_focus() -> None:
    setup = make_setup(window=200_000)
    await run(setup, "Build a CSV parser for invoices")
    events = await collect(
        ThreadRunner().handoff(setup, "the failing edge case", cancel=asyncio.Event())
    )
    assert _status(events)[-1][0] == "done"
    old, new = setup.store.sessions("t1")
    assert new.parent_id == old.id and new.trigger == "manual"
    assert new.handoff["focus"] == "the failing edge case"
    assert old.ended_at is not None
    assert setup.store.read_file("t1", "HANDOFF-1.md").startswith("<!-- baton-handoff")
    first = setup.store.messages(new.id)[0]
    assert first.role == "handoff" and "<handoff-context>" in first.content


async def test_cancel_while_the_handoff_is_written_changes_nothing() -> None:
    gate, entered = asyncio.Event(), asyncio.Event()
    slow = FunctionChatModel(
        fn=lambda messages, **kw: "never used", calls=[], gate=gate, entered=entered
    )
    store = InMemoryStore()
    setup = make_setup(store, window=200_000)
    await run(setup, "Build a CSV parser for invoices")
    setup.handoff_model = slow
    rows_before = len(store.messages(store.current_session("t1").id))
    cancel = asyncio.Event()
    task = asyncio.create_task(collect(ThreadRunner().handoff(setup, None, cancel=cancel)))
    await asyncio.wait_for(entered.wait(), 30)
    cancel.set()
    gate.set()
    events = await asyncio.wait_for(task, 30)
    assert _status(events)[-1] == ("cancelled", "Handoff cancelled")
    assert len(store.sessions("t1")) == 1
    assert "HANDOFF-1.md" not in store.list_files("t1")
    assert len(store.messages(store.current_session("t1").id)) == rows_before


async def test_a_failed_commit_is_reported_as_handoff_failed_and_the_session_goes_on() -> None:
    store = InMemoryStore()
    setup = make_setup(store, window=200_000)
    await run(setup, "Build a CSV parser for invoices")

    def broken_commit(*args, **kwargs):
        raise OSError("disk full")

    store.commit_reset = broken_commit  # type: ignore[method-assign]
    events = await collect(ThreadRunner().handoff(setup, None, cancel=asyncio.Event()))
    assert _status(events)[-1] == ("failed", "Handoff failed: disk full")
    assert len(store.sessions("t1")) == 1


async def test_an_empty_handoff_is_a_failure_not_a_cancellation() -> None:
    empty = FunctionChatModel(fn=lambda messages, **kw: "", calls=[])
    setup = make_setup(window=200_000)
    setup.store.append("t1", setup.store.current_session("t1").id, [])
    from agent_core.storage._records import NewMessage

    session = setup.store.current_session("t1")
    setup.store.append(
        "t1",
        session.id,
        [NewMessage(role="user", content="hello"), NewMessage(role="assistant", content="hi")],
    )
    setup.handoff_model = empty
    events = await collect(ThreadRunner().handoff(setup, None, cancel=asyncio.Event()))
    status, message = _status(events)[-1]
    assert status == "failed" and message.startswith("Handoff failed:")
    assert len(setup.store.sessions("t1")) == 1


async def test_handoff_is_refused_while_the_agent_runs() -> None:
    runner = ThreadRunner()
    setup = make_setup(window=200_000)
    runner._active.add("t1")
    events = await collect(runner.handoff(setup, None, cancel=asyncio.Event()))
    assert _status(events)[0][0] == "failed"
