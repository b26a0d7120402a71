"""Observation masking: old tool outputs become placeholders, nothing else changes."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from agent_core.accounting._calibration import ContextEstimator
from agent_core.context._build import MASKED, build_context
from agent_core.errors import ConfigurationError
from agent_core.history._tools import make_history_tools
from agent_core.policy import make_policy
from agent_core.runtime._coordinator import SessionCoordinator
from agent_core.storage._memory_store import InMemoryStore
from agent_core.storage._records import NewMessage
from agent_core.strategies._cutoff import safe_cutoff
from agent_core.strategies._masking import mask_candidates, should_mask
from tests.agent_core.runtime_helpers import make_setup, of_type, run


def _seed(store: InMemoryStore, steps: int = 8) -> None:
    session = store.current_session("t1")
    rows = [
        NewMessage(role="handoff", content="<handoff-context>h</handoff-context>"),
        NewMessage(role="user", content="Fix the build"),
    ]
    for n in range(steps):
        todo = {"name": "write_todos", "args": {"todos": []}, "id": f"w{n}"}
        run_ = {"name": "run_command", "args": {"command": f"make {n}"}, "id": f"c{n}"}
        rows += [
            NewMessage(role="assistant", content=f"step {n}", tool_calls=[todo, run_]),
            NewMessage(
                role="tool",
                content="todo list updated: 0/0 completed " + "t " * 80,
                tool_call_id=f"w{n}",
                name="write_todos",
            ),
            NewMessage(
                role="tool",
                content=f"build log {n} " + "line " * 300,
                tool_call_id=f"c{n}",
                name="run_command",
            ),
        ]
    store.append("t1", session.id, rows)


def _coordinator(store: InMemoryStore, **policy) -> SessionCoordinator:
    setup = make_setup(store, window=20_000, keep_recent_tokens=900, **policy)
    setup.tools = [*setup.tools, *make_history_tools(store, "t1")]
    return SessionCoordinator(setup, estimator=ContextEstimator("simulator"), emit=lambda e: None)


def test_the_mask_threshold_sits_below_compaction_or_is_off() -> None:
    assert make_policy().mask_threshold == 0.35
    with pytest.raises(ConfigurationError, match="mask threshold .* below the compact"):
        make_policy(mask_threshold=0.5, compact_threshold=0.5)
    off = make_policy(mask_threshold=None)
    assert not should_mask(0.99, off)
    assert should_mask(0.35, make_policy()) and not should_mask(0.34, make_policy())


def test_masking_keeps_pairs_the_recent_span_and_todo_updates() -> None:
    store = InMemoryStore()
    _seed(store)
    coordinator = _coordinator(store)
    before = build_context(store, store.current_session("t1"))
    coordinator.adopt(before)

    after = coordinator.mask(before)

    assert after is not None and len(after) == len(before)
    cut = safe_cutoff(before, 900, coordinator.count)  # where the keep-recent span starts
    assert 0 < cut < len(before)
    for old, new in zip(before, after, strict=True):
        assert type(old) is type(new) and old.id == new.id
        if isinstance(old, AIMessage):
            assert old.tool_calls == new.tool_calls  # every call keeps its result below
        if isinstance(old, ToolMessage):
            assert old.tool_call_id == new.tool_call_id
            if old.name == "write_todos":
                assert new.content == old.content
    masked = [m for m in after if m.additional_kwargs.get(MASKED)]
    assert masked and all(m.name == "run_command" for m in masked)
    assert all(after.index(m) < cut for m in masked)
    assert after[cut:] == before[cut:]  # the keep-recent span is verbatim
    assert masked[0].content.startswith("[run_command output masked to save context (")
    assert "read_history(session=1, start=5, end=5)" in masked[0].content
    assert coordinator.mask(after) is None  # nothing left to mask: no empty edit
    assert mask_candidates(after, 900, coordinator.count) == []


def test_the_placeholder_reread_returns_the_original() -> None:
    store = InMemoryStore()
    _seed(store)
    coordinator = _coordinator(store)
    context = build_context(store, store.current_session("t1"))
    coordinator.adopt(context)
    first = next(m for m in coordinator.mask(context) if m.additional_kwargs.get(MASKED))
    call = first.content.split("; ")[1].split(" shows")[0]
    session, start = (int(part.split("=")[1]) for part in call[13:-1].split(", ")[:2])
    _, read = make_history_tools(store, "t1")
    assert "build log 0 line line" in read.invoke({"session": session, "start": start})


async def test_a_run_masks_old_outputs_and_marks_the_timeline() -> None:
    store = InMemoryStore()
    setup = make_setup(
        store, model_name="anthropic:claude-opus-4-1", window=9000, keep_recent_tokens=600
    )
    events = await run(setup, "Build a CSV parser for invoices")
    masks = of_type(events, "masking")
    assert masks
    assert masks[0]["data"]["message"].startswith("Masked ")
    markers = [
        r
        for r in store.messages(store.current_session("t1").id)
        if r.role == "event" and r.meta.get("event") == "masking"
    ]
    assert len(markers) == len(masks)


async def test_no_mask_when_masking_is_off() -> None:
    setup = make_setup(
        model_name="anthropic:claude-opus-4-1",
        window=9000,
        keep_recent_tokens=600,
        mask_threshold=None,
    )
    assert not of_type(await run(setup, "Build a CSV parser for invoices"), "masking")
