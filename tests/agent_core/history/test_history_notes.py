"""The model is told which stored session holds what, and where compacted originals are."""

from __future__ import annotations

from langchain_core.messages import AIMessage

from agent_core.accounting._calibration import ContextEstimator
from agent_core.context._build import build_context
from agent_core.history._notes import history_note
from agent_core.history._tools import make_history_tools
from agent_core.runtime._coordinator import SessionCoordinator
from agent_core.storage._memory_store import InMemoryStore
from agent_core.storage._records import NewMessage
from agent_core.testing import FunctionChatModel
from tests.agent_core.runtime_helpers import make_setup, run

TASK = "Build a CSV parser for invoices"
OPUS = "anthropic:claude-opus-4-1"


def _with_history(setup):
    setup.tools = [*setup.tools, *make_history_tools(setup.store, setup.thread_id)]
    return setup


def test_the_note_lists_each_session_with_its_request() -> None:
    store = InMemoryStore()
    first = store.current_session("t")
    call = {"name": "write_file", "args": {"path": "parser.py", "content": "x"}, "id": "c"}
    store.append(
        "t",
        first.id,
        [
            NewMessage(role="user", content="Write   the parser"),
            NewMessage(role="assistant", tool_calls=[call]),
        ],
    )
    note = history_note(store.sessions("t"), {first.id: store.messages(first.id)})
    assert "- session 1: messages 1-2; first request at message 1: “Write the parser”\n" in note
    assert "parser.py" not in note  # the handoff's file list names each file's sessions
    assert "search_history(query" in note and "read_history(session, start, end)" in note


async def test_a_handoff_names_the_history_tools_only_when_they_are_offered() -> None:
    with_tools = _with_history(make_setup())
    await run(with_tools, TASK)
    without = make_setup()
    await run(without, TASK)

    def opening(setup) -> str:
        second = setup.store.sessions("t1")[1]
        return next(r.content for r in setup.store.messages(second.id) if r.role == "handoff")

    assert "<history>" in opening(with_tools)
    assert "- session 1: messages 1-" in opening(with_tools)
    assert "<history>" not in opening(without)


def _seeded(store: InMemoryStore) -> None:
    session = store.current_session("t1")
    rows = [NewMessage(role="user", content=TASK)]
    for n in range(8):
        call = {"name": "run_command", "args": {"command": f"step {n}"}, "id": f"c{n}"}
        rows += [
            NewMessage(role="assistant", content=f"step {n}", tool_calls=[call]),
            NewMessage(
                role="tool",
                content=f"output {n} " + "word " * 150,
                tool_call_id=f"c{n}",
                name="run_command",
            ),
        ]
    store.append("t1", session.id, rows)


async def test_a_compaction_summary_says_where_its_originals_are() -> None:
    store = InMemoryStore()
    _seeded(store)
    model = FunctionChatModel(fn=lambda messages: AIMessage(content="They ran eight steps."))
    setup = _with_history(
        make_setup(store, model=model, model_name=OPUS, window=6000, keep_recent_tokens=600)
    )
    coordinator = SessionCoordinator(setup, estimator=ContextEstimator(OPUS), emit=lambda e: None)
    messages = build_context(store, store.current_session("t1"))
    coordinator.adopt(messages)

    assert await coordinator.compact(messages, coordinator.measure(messages)) is not None

    summary = store.context_edits(store.current_session("t1").id)[0].summary
    assert summary.startswith("They ran eight steps.")
    span = summary.split("read_history(session=1, start=1, end=")[1].split(")")[0]
    _, read = make_history_tools(store, "t1")
    shown = read.invoke({"session": 1, "start": 1, "end": int(span)})
    assert TASK in shown and "output 0 word" in shown  # what the compaction hid
