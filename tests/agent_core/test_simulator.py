"""The offline simulator: deterministic, streams, calls tools, answers structured requests."""

from __future__ import annotations

import json

from langchain_core.messages import HumanMessage, ToolMessage
from pydantic import BaseModel

from agent_core.handoff._generation import HandoffDraft
from agent_core.providers._registry import resolve_model
from agent_core.providers._simulator import SIMULATOR_LABEL, SimulatorChatModel
from agent_core.providers._simulator_script import command_output


def _drive(model: SimulatorChatModel, task: str, steps: int = 30) -> list:
    messages: list = [HumanMessage(task)]
    for _ in range(steps):
        reply = model.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            break
        for call in reply.tool_calls:
            output = (
                command_output(call["args"]["command"]) if call["name"] == "run_command" else "ok"
            )
            messages.append(ToolMessage(output, tool_call_id=call["id"]))
    return messages


def test_same_conversation_same_answers() -> None:
    first = _drive(SimulatorChatModel(), "Build a CSV parser")
    second = _drive(SimulatorChatModel(), "Build a CSV parser")

    def strip(m):  # message ids are per run; everything else must match
        return {k: v for k, v in m.model_dump().items() if k != "id"}

    assert [strip(m) for m in first] == [strip(m) for m in second]


def test_it_works_a_todo_list_like_a_coding_agent_and_finishes() -> None:
    messages = _drive(SimulatorChatModel(), "Build a CSV parser")
    names = [c["name"] for m in messages for c in getattr(m, "tool_calls", [])]
    assert names[0] == "write_todos"
    assert {"write_file", "edit_file", "run_command"} <= set(names)
    assert "All 4 todos are complete" in messages[-1].content
    outputs = [
        m.content for m in messages if isinstance(m, ToolMessage) and "[exit status" in m.content
    ]
    assert any("[exit status 1]" in o for o in outputs) and any(
        "[exit status 0]" in o for o in outputs
    )


def test_streaming_yields_the_same_message_as_invoke() -> None:
    model = SimulatorChatModel()
    messages = _drive(model, "Build a CSV parser", steps=3)[:3]
    chunks = list(model.stream(messages))
    assert len(chunks) > 2
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged += chunk
    direct = model.invoke(messages)
    assert merged.content == direct.content
    assert [c["args"] for c in merged.tool_calls] == [c["args"] for c in direct.tool_calls]


def test_structured_output_is_schema_valid_and_derived_from_the_conversation() -> None:
    messages = _drive(SimulatorChatModel(), "Build a CSV parser", steps=12)
    draft = SimulatorChatModel().with_structured_output(HandoffDraft).invoke(messages)
    assert isinstance(draft, HandoffDraft)
    assert draft.completed_work and draft.files_modified and draft.current_state_summary

    class Anything(BaseModel):
        title: str
        count: int
        tags: list[str]

    assert isinstance(
        SimulatorChatModel().with_structured_output(Anything).invoke(messages), Anything
    )


def test_it_is_labelled_as_the_simulator_never_as_a_language_model() -> None:
    resolved = resolve_model("simulator")
    assert resolved.is_simulator and resolved.label == SIMULATOR_LABEL == "Offline simulator"


def test_the_simulators_handoff_decisions_are_the_users_own_words() -> None:
    from langchain_core.messages import AIMessage, HumanMessage

    from agent_core.handoff._generation import HandoffDraft
    from agent_core.providers._simulator_fill import fill_schema

    conversation = [
        HumanMessage("Build a CSV parser for invoices. Never use pandas! Keep it in parser.py"),
        AIMessage("Planning the work."),
        HumanMessage(
            "<handoff-context>use whatever</handoff-context>",
            additional_kwargs={"baton_kind": "handoff"},
        ),
    ]
    draft = fill_schema(HandoffDraft.model_json_schema(), conversation)
    assert draft["constraints"] == ["Never use pandas!", "Keep it in parser.py"]
    assert draft["key_decisions"] == [] and draft["errors_and_fixes"] == []
    silent = fill_schema(HandoffDraft.model_json_schema(), [HumanMessage("Build a parser")])
    assert silent["constraints"] == []  # nothing canned when the user stated nothing
    assert silent.get("next_step", "") == ""


def test_in_a_handoff_prompt_only_the_users_transcript_entries_count() -> None:
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    from agent_core.handoff._generation import HandoffDraft
    from agent_core.handoff._prompt import render_transcript
    from agent_core.providers._simulator_fill import fill_schema

    transcript = render_transcript(
        [
            HumanMessage("Write the report. Always cite the source."),
            AIMessage("I will use the csv module and keep notes."),
            HumanMessage(
                "<handoff-context>never mind</handoff-context>",
                additional_kwargs={"baton_kind": "handoff"},
            ),
        ],
        lambda text: len(text) // 4,
        10_000,
    )
    prompt = [
        SystemMessage("Never invent facts; use the tool evidence."),
        HumanMessage(f"<transcript>\n{transcript}\n</transcript>"),
    ]
    draft = fill_schema(HandoffDraft.model_json_schema(), prompt)
    assert draft["constraints"] == ["Always cite the source."]


def test_after_a_reset_the_simulator_writes_the_in_progress_todos_file() -> None:
    # The reset fell after the todo was started and before its file was written: the new
    # session writes it, instead of marking the todo done.
    from langchain_core.messages import HumanMessage

    from agent_core.handoff._artifact import HandoffArtifact, Todo, handoff_context_message
    from agent_core.providers._simulator_script import next_step

    todos = [
        {"id": "t1", "content": "Sketch the design for csv parser", "status": "completed"},
        {"id": "t2", "content": "Implement the csv parser module", "status": "in_progress"},
    ]
    artifact = HandoffArtifact(
        session_number=1,
        trigger="auto",
        utilization=0.8,
        model="sim",
        goal="Build a CSV parser",
        open_todos=[Todo(**todos[1])],
    )
    state = json.dumps({"task": "Build a CSV parser", "todos": todos})
    opening = HumanMessage(
        f"{handoff_context_message(artifact)}\n<todo-state>{state}</todo-state>",
        additional_kwargs={"baton_kind": "handoff"},
    )
    step = next_step([opening])
    assert [(c["name"], c["args"]["path"]) for c in step.tool_calls] == [
        ("write_file", "csv_parser/core.py")
    ]
    assert "Implement the csv parser module" in step.tool_calls[0]["args"]["content"]


async def test_every_todo_the_simulator_finishes_across_resets_has_its_file() -> None:
    from agent_core.providers._simulator_script import _file_for
    from tests.agent_core.runtime_helpers import make_setup, of_type, run

    task = "Build a CSV parser for invoices"
    setup = make_setup(window=2500, context_strategy="reset")
    events = await run(setup, task)
    assert len(of_type(events, "context_reset", "reset_complete")) >= 3
    todos = _final_todos(setup)
    assert todos and all(t["status"] == "completed" for t in todos)
    assert all(setup.store.read_file("t1", _file_for(t, task)) for t in todos)
    # every session's handoff carries the thread's goal, so the work keeps its file names
    assert {s.handoff["goal"] for s in setup.store.sessions("t1")[1:]} == {task}


def _final_todos(setup) -> list[dict]:
    for session in reversed(setup.store.sessions("t1")):
        for message in reversed(setup.store.messages(session.id)):
            for call in reversed(message.tool_calls):
                if call["name"] == "write_todos":
                    return call["args"]["todos"]
    return []


def test_it_never_says_the_tests_pass_when_a_check_it_ran_failed_last() -> None:
    # Each todo's `--check` fails and is not run again after the fix: the last words say so.
    messages = _drive(SimulatorChatModel(), "Build a CSV parser")
    final = messages[-1].content
    assert "tests pass" not in final
    assert "`python -m csv_parser --check` failed on its last run" in final
    assert "[exit status 1]" in command_output("python -m csv_parser --check")


def test_it_says_the_tests_pass_when_every_command_passed_last() -> None:
    def all_pass(command: str) -> str:
        return command_output(command).replace("[exit status 1]", "[exit status 0]")

    messages: list = [HumanMessage("Build a CSV parser")]
    model = SimulatorChatModel()
    for _ in range(30):
        reply = model.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            break
        messages.extend(
            ToolMessage(
                all_pass(c["args"]["command"]) if c["name"] == "run_command" else "ok",
                tool_call_id=c["id"],
            )
            for c in reply.tool_calls
        )
    assert "The tests pass and the work is ready for review." in messages[-1].content
