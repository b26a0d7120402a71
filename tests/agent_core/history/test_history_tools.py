"""The history tools over the in-memory store: what the agent can find and reread."""

from __future__ import annotations

import pytest

from agent_core.errors import ToolInputError
from agent_core.history._tools import MAX_HITS, MAX_OUTPUT_CHARS, make_history_tools
from agent_core.storage._memory_store import InMemoryStore
from agent_core.storage._records import ContextEdit, NewMessage


def _tools(store: InMemoryStore, thread: str):
    search, read = make_history_tools(store, thread)
    return search, read


def _reset(store: InMemoryStore, thread: str, old: str):
    return store.commit_reset(
        thread,
        old_session_id=old,
        trigger="auto",
        utilization=0.8,
        model="m",
        handoff={},
        handoff_path="HANDOFF-1.md",
        handoff_markdown="#",
        context=[NewMessage(role="handoff", content="handoff text")],
    )


@pytest.fixture
def thread() -> tuple[InMemoryStore, str]:
    store = InMemoryStore()
    first = store.current_session("t")
    call = {"name": "run_command", "args": {"command": "pytest -q"}, "id": "c1"}
    store.append(
        "t",
        first.id,
        [
            NewMessage(role="user", content="Fix the flaky parser test"),
            NewMessage(role="assistant", content="", tool_calls=[call]),
            NewMessage(
                role="tool",
                content="FAILED test_parser.py::test_quotes - KeyError: 'quux'",
                tool_call_id="c1",
                name="run_command",
            ),
        ],
    )
    store.add_context_edit(first.id, ContextEdit(kind="compaction", summary="s", upto_seq=3))
    second, _ = _reset(store, "t", first.id)
    store.append("t", second.id, [NewMessage(role="user", content="what was the KeyError?")])
    return store, "t"


def test_search_names_the_session_and_position_of_a_compacted_message(thread) -> None:
    store, thread_id = thread
    search, _ = _tools(store, thread_id)
    out = search.invoke({"query": "keyerror quux"})
    assert "session 1, message 3 (tool run_command)" in out
    assert "read_history(session=1, start=2, end=4)" in out


def test_read_history_returns_the_originals_verbatim(thread) -> None:
    store, thread_id = thread
    _, read = _tools(store, thread_id)
    out = read.invoke({"session": 1, "start": 2, "end": 3})
    assert "--- session 1, message 2 (assistant) ---" in out
    assert 'run_command({"command": "pytest -q"})' in out
    assert "FAILED test_parser.py::test_quotes - KeyError: 'quux'" in out
    assert "Fix the flaky parser test" not in out  # message 1 was not asked for


def test_search_can_be_limited_to_one_session(thread) -> None:
    store, thread_id = thread
    search, _ = _tools(store, thread_id)
    assert "session 2, message 2 (user)" in search.invoke({"query": "keyerror", "session": 2})
    assert "session 1" not in search.invoke({"query": "keyerror", "session": 2})


def test_the_tools_refuse_sessions_the_thread_does_not_have(thread) -> None:
    store, thread_id = thread
    other = store.current_session("other")
    store.append("other", other.id, [NewMessage(role="user", content="secret quux of another")])
    search, read = _tools(store, thread_id)
    with pytest.raises(ToolInputError, match="no session 3; its sessions are 1, 2"):
        read.func(session=3, start=1)  # type: ignore[misc]
    assert "another" not in search.invoke({"query": "quux"})


def test_an_out_of_range_read_says_what_exists(thread) -> None:
    store, thread_id = thread
    _, read = _tools(store, thread_id)
    with pytest.raises(ToolInputError, match="holds messages 1 to 3"):
        read.func(session=1, start=5, end=6)  # type: ignore[misc]


def test_outputs_are_bounded() -> None:
    store = InMemoryStore()
    session = store.current_session("t")
    store.append(
        "t",
        session.id,
        [NewMessage(role="user", content=f"papaya {i} " + "x" * 9_000) for i in range(40)],
    )
    search, read = _tools(store, "t")
    hits = search.invoke({"query": "papaya"})
    assert hits.count("- session 1, message") == MAX_HITS
    assert len(hits) <= MAX_OUTPUT_CHARS + 200
    text = read.invoke({"session": 1, "start": 1, "end": 40})
    assert len(text) <= MAX_OUTPUT_CHARS + 300
    assert "read_history(session=1, start=" in text  # says how to read on
