"""A handoff that tells the truth about itself: its state line is counted from the lists it
sits above, and each request is in one state (issue 42: "What was found" 7)."""

from __future__ import annotations

import json

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from agent_core.providers._simulator import SimulatorChatModel
from agent_core.testing import ScriptedChatModel
from tests.agent_core.handoff.writer import written


def call(name: str, args: dict, output: str, n: int) -> list:
    return [
        AIMessage("", tool_calls=[{"name": name, "id": f"c{n}", "args": args}]),
        ToolMessage(output, tool_call_id=f"c{n}", name=name),
    ]


TODOS = [
    {"content": f"Step {n}", "status": "completed" if n < 5 else "in_progress"} for n in range(1, 6)
]
MESSAGES = [
    HumanMessage("Build the exporter in five steps."),
    *call("write_todos", {"todos": TODOS}, "ok", 1),
    *(
        message
        for n in range(5)
        for message in call(
            "Write", {"file_path": f"/repo/src/m{n}.py", "content": "x"}, "ok", 10 + n
        )
    ),
    *call("run_command", {"command": "pytest -q"}, "E   KeyError: 'x'\n[exit status 1]", 20),
    HumanMessage("also export to JSON"),
]
CLAIMS = {
    "completed_work": ["Steps 1-5", "Exported to JSON as the user asked: also export to JSON"],
    "in_progress": ["Final report"],
    "next_step": "",
    "remaining_tasks": [],
    "key_decisions": [],
    "constraints": [],
    "errors_and_fixes": [],
    "files_modified": [],
    "current_state_summary": "All 5 todos are done; 0 files changed this session; only the "
    "final report is left.",
}


def handoff(model):
    return written(MESSAGES, model=model)


def test_a_model_state_line_that_contradicts_the_lists_is_replaced_by_their_count() -> None:
    a = handoff(ScriptedChatModel([json.dumps(CLAIMS)]))
    assert a.current_state_summary == (
        "4 of 5 todos done; 5 files changed; 1 check still failing; 1 request open."
    )
    assert any(d.startswith("State: “All 5 todos are done") for d in a.disagreements)


def test_a_request_is_either_done_or_open_never_both() -> None:
    a = handoff(ScriptedChatModel([json.dumps(CLAIMS)]))
    assert any(m.endswith("also export to JSON") and "open" in m for m in a.user_messages)
    assert not any("JSON" in item for item in a.completed_work)
    assert any("the request is still open" in d for d in a.disagreements)


def test_the_simulator_writer_counts_the_files_beside_its_state_line() -> None:
    a = handoff(SimulatorChatModel())
    assert len(a.files_modified) == 5
    assert a.current_state_summary.startswith("4 of 5 todos done; 5 files changed;")
    assert "0 files" not in a.current_state_summary
