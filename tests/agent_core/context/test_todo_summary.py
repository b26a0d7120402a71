"""A finished todo's summary comes from the handoff's structured writer, scoped to the todo's
span: model-written when a model is there, from the evidence otherwise, never larger than the
span; a blocked todo carries its blocker into the summary and the handoff (issue 42: seed
rows)."""

from __future__ import annotations

import asyncio
import json

import pytest

from agent_core.context._todos import model_todo_summary, todo_summary
from agent_core.handoff._artifact import HandoffArtifact
from agent_core.handoff._facts import extract_facts
from agent_core.storage._memory_store import InMemoryStore
from agent_core.storage._records import NewMessage
from agent_core.testing import ScriptedChatModel
from agent_core.tools._builtin import make_tools
from tests.agent_core.context.test_compaction_runtime import TASK
from tests.agent_core.runtime_helpers import make_setup, of_type, run


def _span(store: InMemoryStore):
    session = store.current_session("t1")

    def call(n: int, name: str, args: dict, output: str) -> list[NewMessage]:
        return [
            NewMessage(
                role="assistant",
                content="",
                todo_id="t1",
                tool_calls=[{"name": name, "args": args, "id": f"k{n}"}],
            ),
            NewMessage(role="tool", content=output, tool_call_id=f"k{n}", todo_id="t1"),
        ]

    return store.append(
        "t1",
        session.id,
        [
            *call(
                1,
                "run_command",
                {"command": "pytest tests/test_rows.py"},
                "E   tests/test_rows.py:3: KeyError\n[exit status 1]",
            ),
            *call(2, "edit_file", {"path": "tests/test_rows.py", "old": "a", "new": "b"}, "ok"),
            *call(
                3,
                "run_command",
                {"command": "pytest tests/test_rows.py"},
                "1 passed\n[exit status 0]",
            ),
        ],
    )


def test_the_evidence_summary_has_the_handoffs_sections_for_the_span() -> None:
    store = InMemoryStore()
    rows = _span(store)
    summary = todo_summary("Parse rows", "completed", rows)
    assert summary.startswith('Todo "Parse rows" is completed.')
    assert "Files: tests/test_rows.py." in summary
    assert (
        "Lessons: `pytest tests/test_rows.py` failed (exit 1; output: “E tests/test_rows.py:3: "
        "KeyError”); passed after editing tests/test_rows.py." in summary
    )
    assert ".." not in summary


def test_a_model_writes_the_summary_through_the_handoff_writer() -> None:
    store = InMemoryStore()
    rows = _span(store)
    draft = {
        "completed_work": ["Rows parse with a trailing newline"],
        "in_progress": [],
        "next_step": "",
        "remaining_tasks": [],
        "key_decisions": ["Keep the stdlib csv module"],
        "constraints": [],
        "errors_and_fixes": [],
        "files_modified": ["tests/test_rows.py"],
        "current_state_summary": "Done.",
    }
    summary = asyncio.run(
        model_todo_summary(
            ScriptedChatModel([json.dumps(draft)]),
            "Parse rows",
            "blocked",
            rows,
            blocker="waiting for the sample invoices",
        )
    )
    assert summary is not None
    assert summary.startswith('Todo "Parse rows" is blocked: blocked by waiting for the sample')
    assert "Decisions: Keep the stdlib csv module." in summary
    assert "Done: Rows parse with a trailing newline" in summary


async def test_the_models_summary_is_used_fitted_and_never_larger_than_the_span() -> None:
    huge = {
        "completed_work": ["word " * 3000],
        "key_decisions": ["decision " * 3000],
        "remaining_tasks": ["x"],
        "current_state_summary": "s",
    }
    store = InMemoryStore()
    setup = make_setup(store, window=200_000, handoff_model=ScriptedChatModel([json.dumps(huge)]))
    events = await run(setup, TASK)
    compressed = of_type(events, "todo_compressed")
    assert compressed
    assert all(e["data"]["tokens_after"] < e["data"]["tokens_before"] for e in compressed)
    edits = [e for e in store.context_edits(store.current_session("t1").id) if e.kind == "todo"]
    # The model's words, fitted to the summary's budget by the handoff writer.
    assert edits and all("Decisions: decision decision" in e.summary for e in edits)
    assert all(e.tokens_after <= 420 for e in edits)


def test_a_blocked_todo_needs_its_blocker_and_both_reach_the_handoff() -> None:
    tool = next(t for t in make_tools(InMemoryStore(), "t1") if t.name == "write_todos")
    with pytest.raises(Exception, match="blocker"):
        tool.invoke({"todos": [{"content": "Deploy", "status": "blocked"}]})
    todos = [
        {"content": "Deploy", "status": "blocked", "blocker": "no staging credentials"},
        {"content": "Docs", "status": "pending"},
    ]
    assert tool.invoke({"todos": todos}).endswith("1 blocked")
    from langchain_core.messages import AIMessage, ToolMessage

    facts = extract_facts(
        [
            AIMessage(
                "", tool_calls=[{"name": "write_todos", "id": "w", "args": {"todos": todos}}]
            ),
            ToolMessage("ok", tool_call_id="w"),
        ]
    )
    (blocked, _) = facts.open_todos
    assert (blocked.status, blocked.blocker) == ("blocked", "no staging credentials")
    artifact = HandoffArtifact(
        session_number=1, trigger="auto", utilization=0.8, model="m", open_todos=facts.open_todos
    )
    markdown = artifact.to_markdown()
    assert "- [!] Deploy\n  blocker: no staging credentials" in markdown
    assert HandoffArtifact.from_markdown(markdown).open_todos[0].blocker == "no staging credentials"


def test_a_summary_with_the_todos_work_costs_one_model_call() -> None:
    """A finished todo leaves no remaining tasks and no session state to tell: the model
    rightly leaves those sections empty, and is not asked again for them."""
    store = InMemoryStore()
    rows = _span(store)
    draft = {
        "completed_work": ["Rows parse with a trailing newline"],
        "remaining_tasks": [],
        "current_state_summary": "",
        "files_modified": ["tests/test_rows.py"],
    }
    model = ScriptedChatModel([json.dumps(draft)])
    summary = asyncio.run(model_todo_summary(model, "Parse rows", "completed", rows))
    assert summary is not None and "Done: Rows parse with a trailing newline" in summary
    assert len(model.calls) == 1


def test_a_summary_without_the_todos_work_is_asked_for_it_once_more() -> None:
    store = InMemoryStore()
    rows = _span(store)
    empty = {"completed_work": [], "remaining_tasks": [], "current_state_summary": ""}
    again = {"completed_work": ["Fixed the KeyError in the rows test"]}
    model = ScriptedChatModel([json.dumps(empty), json.dumps(again)])
    summary = asyncio.run(model_todo_summary(model, "Parse rows", "completed", rows))
    assert summary is not None and "Done: Fixed the KeyError in the rows test" in summary
    assert len(model.calls) == 2  # not a third time for the sections a todo leaves empty
