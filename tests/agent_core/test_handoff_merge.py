"""Handoff v2: anchored merge, the coverage check, budget trimming and the facts-only note."""

from __future__ import annotations

import json

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from agent_core.handoff.artifact import FileChange, HandoffArtifact, Todo
from agent_core.handoff.budget import fit_to_budget
from agent_core.handoff.facts import extract_facts
from agent_core.handoff.facts_only import errors_and_fixes
from agent_core.handoff.generation import generate_handoff
from agent_core.handoff.grounded import CommandRun, GitCommit, GroundedFacts
from agent_core.handoff.merge import coverage, ground, merge_previous


def words(text: str) -> int:
    return len(text.split()) + 1


def artifact(n: int, **fields) -> HandoffArtifact:
    return HandoffArtifact(session_number=n, trigger="auto", utilization=0.8, model="m", **fields)


def shell(call_id: str, command: str, status: int) -> list:
    return [AIMessage("", tool_calls=[{"name": "run_command", "id": call_id,
                                       "args": {"command": command}}]),
            ToolMessage(f"output\n[exit status {status}]", tool_call_id=call_id)]


def test_handoff_n_is_handoff_n_minus_1_updated_by_session_n() -> None:
    previous = artifact(
        1, goal="Build a CSV importer", constraints=["Never use pandas."],
        user_messages=["Build a CSV importer. Never use pandas."],
        completed_work=["Parser skeleton"], remaining_tasks=["Tests", "Docs"],
        key_decisions=["csv module"], next_step="write the parser",
        files_modified=[FileChange(path="parser.py", verified=True, sessions=[1])],
        open_todos=[Todo(content="Tests"), Todo(content="Docs")])
    current = artifact(
        2, goal="also handle tabs", user_messages=["also handle tabs"],
        completed_work=["Tests"], open_todos=[Todo(content="Docs")],
        files_modified=[FileChange(path="parser.py", verified=True),
                        FileChange(path="test_parser.py", verified=True)])
    merged = merge_previous(current, previous, todos_recorded=True)
    assert merged.goal == "Build a CSV importer"  # carried unchanged
    assert merged.constraints == ["Never use pandas."]
    assert merged.user_messages == ["Build a CSV importer. Never use pandas.", "also handle tabs"]
    assert merged.completed_work == ["Parser skeleton", "Tests"]
    assert merged.remaining_tasks == ["Docs"]  # "Tests" was superseded: done in session 2
    assert merged.key_decisions == ["csv module"] and merged.next_step == "write the parser"
    assert [(f.path, f.sessions) for f in merged.files_modified] == [
        ("parser.py", [1, 2]), ("test_parser.py", [2])]


def test_todos_the_session_did_not_rewrite_are_carried() -> None:
    previous = artifact(1, open_todos=[Todo(content="Docs", status="blocked")])
    merged = merge_previous(artifact(2), previous, todos_recorded=False)
    assert merged.open_todos == [Todo(content="Docs", status="blocked")]


FACTS = GroundedFacts(
    files_modified=[FileChange(path=f"f{i}.py", verified=True) for i in range(3)],
    commits=[GitCommit(sha="abcdef1234", message="Add parser")],
    todos=[Todo(content="Docs", status="pending"), Todo(content="Tests", status="completed")],
    user_requests=["Build it", "and document it"],
)


def test_missing_grounded_items_are_merged_in_and_counted() -> None:
    thin = artifact(1, files_modified=[FileChange(path="f0.py", verified=True)])
    before = {str(c) for c in coverage(thin, FACTS, ["PLAN.md"])}
    assert before == {"files 1/3", "todos 0/1", "requests 0/2", "commits 0/1", "pinned 0/1"}
    full = ground(thin, FACTS, ["PLAN.md"])
    after = {str(c) for c in coverage(full, FACTS, ["PLAN.md"])}
    assert after == {"files 3/3", "todos 1/1", "requests 2/2", "commits 1/1", "pinned 1/1"}


def test_the_budget_shortens_the_oldest_middle_user_messages_first() -> None:
    messages = ["FIRST " + "a " * 300, "second " + "b " * 300, "third " + "c " * 300,
                "LATEST " + "d " * 300]
    big = artifact(1, goal=messages[0], user_messages=messages,
                   constraints=["Never use pandas."], next_step="write tests")
    fitted, tokens = fit_to_budget(big, 1250, words)
    assert tokens <= 1250
    kept = fitted.user_messages
    assert kept[0] == messages[0] and kept[-1] == messages[-1]
    assert kept[1].endswith("…") and messages[1].startswith(kept[1][:-1])
    assert len(kept[1]) <= len(kept[2]) < len(messages[2]) + 1
    assert fitted.goal == messages[0] and fitted.constraints == ["Never use pandas."]


def test_a_huge_first_message_keeps_its_verbatim_copy_in_the_goal() -> None:
    task = "Parse this log. " + "line of the pasted log " * 600
    big = artifact(1, goal=task, user_messages=[task, "go on"])
    fitted, tokens = fit_to_budget(big, 1500, words)
    assert fitted.goal == task and fitted.user_messages[-1] == "go on"
    assert fitted.user_messages[0].endswith("…") and task.startswith(fitted.user_messages[0][:-1])


def test_a_failed_command_is_reported_with_the_run_that_passed() -> None:
    notes = errors_and_fixes([CommandRun(command="pytest -q", exit_status=1),
                              CommandRun(command="ls", exit_status=0, changed_before=["a.py"]),
                              CommandRun(command="pytest -q", exit_status=0,
                                         changed_before=["b.py"]),
                              CommandRun(command="make lint", exit_status=2),
                              CommandRun(command="flaky", exit_status=1),
                              CommandRun(command="flaky", exit_status=0)])
    assert notes == ["`pytest -q` failed (exit 1); passed after changing a.py, b.py",
                     "`make lint` failed (exit 2) and has not passed since",
                     "`flaky` failed (exit 1); passed when run again, with no file changed "
                     "in between"]


def test_a_traceback_is_a_failure_when_no_exit_status_is_reported() -> None:
    facts = extract_facts([
        AIMessage("", tool_calls=[{"name": "bash", "id": "1",
                                   "args": {"command": "python reproduce.py"}}]),
        ToolMessage('Traceback (most recent call last):\n  File "r.py"\nTypeError: bad date',
                    tool_call_id="1"),
        AIMessage("", tool_calls=[{"name": "edit_file", "id": "2",
                                   "args": {"path": "/repo/dates.py"}}]),
        ToolMessage("edited", tool_call_id="2"),
        AIMessage("", tool_calls=[{"name": "bash", "id": "3",
                                   "args": {"command": "python reproduce.py"}}]),
        ToolMessage("2024-01-01", tool_call_id="3"),
    ])
    assert errors_and_fixes(facts.commands) == [
        "`python reproduce.py` failed (TypeError: bad date); passed after changing dates.py"]


async def test_the_facts_only_note_carries_goal_requests_errors_and_real_todo_status() -> None:
    messages = [
        HumanMessage("Build a CSV importer. Never use pandas."),
        *shell("1", "pytest -q", 1),
        AIMessage("", tool_calls=[{"name": "edit_file", "id": "e",
                                   "args": {"path": "/repo/importer.py"}}]),
        ToolMessage("edited", tool_call_id="e"),
        AIMessage("", tool_calls=[{"name": "write_todos", "id": "t", "args": {"todos": [
            {"content": "Parser", "status": "completed"},
            {"content": "Tab support", "status": "in_progress"},
            {"content": "Upload to S3", "status": "blocked"}]}}]),
        ToolMessage("ok", tool_call_id="t"),
        *shell("2", "pytest -q", 0),
        HumanMessage("also handle tabs"),
        AIMessage("On it."),
    ]
    result = await generate_handoff(None, messages, session_number=1, trigger="auto",
                                    utilization=0.8, model_name="m", count_tokens=words)
    a = result.artifact
    assert a.goal == "Build a CSV importer. Never use pandas."
    assert a.constraints == ["Never use pandas."]
    assert a.user_messages == ["Build a CSV importer. Never use pandas.", "also handle tabs"]
    assert a.next_step == "Tab support"
    assert a.errors_and_fixes == [
        "`pytest -q` failed (exit 1); passed after changing importer.py"]
    assert [(t.content, t.status) for t in a.open_todos] == [
        ("Tab support", "in_progress"), ("Upload to S3", "blocked")]
    assert "(blocked) Upload to S3" in a.remaining_tasks
    assert {str(c) for c in a.checks} >= {"requests 2/2", "todos 2/2"}


async def test_a_model_draft_is_merged_into_the_previous_handoff() -> None:
    previous = artifact(1, goal="Build a CSV importer", user_messages=["Build a CSV importer"],
                        completed_work=["Parser skeleton"], key_decisions=["csv module"])
    draft = {"completed_work": ["Tab support"], "remaining_tasks": ["Docs"],
             "current_state_summary": "Tabs work.", "constraints": ["use pandas everywhere"],
             "next_step": "something never said"}
    model_messages = [HumanMessage("also handle tabs"), AIMessage("Done.")]


    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    model = GenericFakeChatModel(messages=iter([AIMessage(json.dumps(draft))]))
    result = await generate_handoff(model, model_messages, previous=previous, session_number=2,
                                    trigger="auto", utilization=0.8, model_name="m",
                                    count_tokens=words)
    a = result.artifact
    assert a.goal == "Build a CSV importer"
    assert a.completed_work == ["Parser skeleton", "Tab support"]
    assert a.key_decisions == ["csv module"]
    assert a.user_messages == ["Build a CSV importer", "also handle tabs"]
    assert a.constraints == []  # the model's "constraint" is not the user's words
    assert a.next_step == "also handle tabs"  # nor is its next step a quote


def test_importer_marks_are_never_requests() -> None:
    facts = extract_facts([
        HumanMessage("Fix the bug"),
        HumanMessage("<task-notification>done</task-notification>",
                     additional_kwargs={"not_user": "task_notification"}),
        HumanMessage("Fix the bug", additional_kwargs={"carried_over_from": "m1"}),
    ])
    assert facts.user_requests == ["Fix the bug"]


async def test_the_goal_changes_only_when_the_user_is_quoted_replacing_it() -> None:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

    previous = artifact(1, goal="Build a CSV importer", user_messages=["Build a CSV importer"])
    said = "Forget the importer: build a JSON exporter instead."
    messages = [HumanMessage(said), AIMessage("Switching.")]

    async def handoff(new_goal: str) -> HandoffArtifact:
        draft = {"completed_work": ["x"], "remaining_tasks": ["y"],
                 "current_state_summary": "z", "new_goal": new_goal}
        model = GenericFakeChatModel(messages=iter([AIMessage(json.dumps(draft))]))
        result = await generate_handoff(model, messages, previous=previous, session_number=2,
                                        trigger="auto", utilization=0.8, model_name="m",
                                        count_tokens=words)
        return result.artifact

    assert (await handoff(said)).goal == said
    assert (await handoff("Build an exporter")).goal == "Build a CSV importer"  # not a quote
    assert (await handoff("")).goal == "Build a CSV importer"
