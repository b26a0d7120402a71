"""Handoff v3: anchored merge, lessons, budget by value with "omitted" lines, the independent
check, and the facts-only note."""

from __future__ import annotations

import json

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from agent_core.handoff._artifact import FileChange, HandoffArtifact, Todo
from agent_core.handoff._budget import fit_to_budget
from agent_core.handoff._facts import extract_facts
from agent_core.handoff._facts_only import errors_and_fixes
from agent_core.handoff._generation import generate_handoff
from agent_core.handoff._grounded import CommandRun, GitCommit, GroundedFacts, UserRequest
from agent_core.handoff._inventory import check, take_inventory
from agent_core.handoff._merge import ground, merge_lessons, merge_previous
from agent_core.handoff._omitted import named_places


def words(text: str) -> int:
    return len(text.split()) + 1


def artifact(n: int, **fields) -> HandoffArtifact:
    return HandoffArtifact(session_number=n, trigger="auto", utilization=0.8, model="m", **fields)


def shell(call_id: str, command: str, status: int, output: str = "output") -> list:
    return [
        AIMessage(
            "", tool_calls=[{"name": "run_command", "id": call_id, "args": {"command": command}}]
        ),
        ToolMessage(f"{output}\n[exit status {status}]", tool_call_id=call_id),
    ]


def test_handoff_n_is_handoff_n_minus_1_updated_by_session_n() -> None:
    previous = artifact(
        1,
        goal="Build a CSV importer",
        constraints=["Never use pandas."],
        user_messages=["[1:3 open] also handle tabs"],
        completed_work=["Parser skeleton"],
        remaining_tasks=["Tests", "Docs"],
        key_decisions=["csv module"],
        next_step="write the parser",
        errors_and_fixes=["Still failing: `pytest -q` (exit 1)"],
        files_modified=[FileChange(path="parser.py", verified=True, sessions=[1])],
        open_todos=[Todo(content="Tests"), Todo(content="Docs")],
    )
    current = artifact(
        2,
        user_messages=["[2:1] and semicolons"],
        completed_work=["Tests"],
        errors_and_fixes=["`pytest -q` failed (exit 1); passed after editing parser.py"],
        open_todos=[Todo(content="Docs")],
        files_modified=[
            FileChange(path="parser.py", verified=True),
            FileChange(path="test_parser.py", verified=True),
        ],
    )
    merged = merge_previous(current, previous, todos_recorded=True, replied=True)
    assert merged.goal == "Build a CSV importer"  # carried unchanged
    assert merged.constraints == ["Never use pandas."]
    # The open request was answered by this session's completed reply.
    assert merged.user_messages == ["[1:3] also handle tabs", "[2:1] and semicolons"]
    assert merged.completed_work == ["Parser skeleton", "Tests"]
    assert merged.remaining_tasks == ["Docs"]  # "Tests" was superseded: done in session 2
    assert merged.key_decisions == ["csv module"]
    assert merged.next_step == ""  # the session replied and left nothing under way
    assert merged.errors_and_fixes == [  # the newer line about the command replaces the old
        "`pytest -q` failed (exit 1); passed after editing parser.py"
    ]
    assert [(f.path, f.sessions) for f in merged.files_modified] == [
        ("parser.py", [1, 2]),
        ("test_parser.py", [2]),
    ]


def test_an_open_request_and_what_was_under_way_stay_until_a_session_replies() -> None:
    previous = artifact(
        1,
        user_messages=["[1:3 queued open] also handle tabs"],
        in_progress=["Todo (2 of 3): Tabs"],
        next_step="split on tabs",
    )
    merged = merge_previous(artifact(2), previous, todos_recorded=False, replied=False)
    assert merged.user_messages == ["[1:3 queued open] also handle tabs"]
    assert (merged.in_progress, merged.next_step) == (["Todo (2 of 3): Tabs"], "split on tabs")


def test_todos_the_session_did_not_rewrite_are_carried() -> None:
    previous = artifact(1, open_todos=[Todo(content="Docs", status="blocked")])
    merged = merge_previous(artifact(2), previous, todos_recorded=False)
    assert merged.open_todos == [Todo(content="Docs", status="blocked")]


def test_lessons_still_failing_come_first() -> None:
    merged = merge_lessons(
        ["`a` failed (exit 1); passed after editing a.py", "Still failing: `b` (exit 2)"],
        ["Still failing: `c` (exit 1)"],
    )
    assert merged == [
        "Still failing: `c` (exit 1)",
        "Still failing: `b` (exit 2)",
        "`a` failed (exit 1); passed after editing a.py",
    ]


FACTS = GroundedFacts(
    files_modified=[FileChange(path=f"f{i}.py", verified=True) for i in range(3)],
    commits=[GitCommit(sha="abcdef1234", message="Add parser")],
    todos=[Todo(content="Docs", status="pending"), Todo(content="Tests", status="completed")],
    requests=[UserRequest(text="Build it", index=0), UserRequest(text="and document it", index=2)],
)


def test_missing_grounded_items_are_merged_in() -> None:
    thin = artifact(1, files_modified=[FileChange(path="f0.py", verified=True)])
    full = ground(thin, FACTS, ["PLAN.md"], locate=lambda i: (1, i + 1))
    assert [f.path for f in full.files_modified] == ["f0.py", "f1.py", "f2.py"]
    assert full.user_messages == ["[1:1 open] Build it", "[1:3 open] and document it"]
    assert "Commit abcdef1: Add parser" in full.completed_work
    assert [t.content for t in full.open_todos] == ["Docs"] and full.pinned_files == ["PLAN.md"]


def test_the_check_counts_what_the_raw_messages_hold_and_names_what_is_missing() -> None:
    # The facts know write_file/edit_file; "apply_patch" with a path is new to them. The
    # independent inventory reads any writing tool's path, so the miss shows by name.
    messages = [
        HumanMessage("Fix the parser"),
        AIMessage("", tool_calls=[{"name": "write_file", "id": "1", "args": {"path": "a.py"}}]),
        ToolMessage("ok", tool_call_id="1"),
        AIMessage(
            "",
            tool_calls=[
                {
                    "name": "apply_patch",
                    "id": "2",
                    "args": {"file_path": "/repo/b.py", "patch": "…"},
                }
            ],
        ),
        ToolMessage("ok", tool_call_id="2"),
        AIMessage("", tool_calls=[{"name": "write_file", "id": "3", "args": {"path": "c.py"}}]),
        ToolMessage("error: disk full", tool_call_id="3", status="error"),
    ]
    facts = extract_facts(messages)
    assert facts.modified_paths == ["a.py"]
    a = artifact(1, goal="Fix the parser", files_modified=facts.files_modified)
    checks = {c.kind: str(c) for c in check(a, take_inventory(messages))}
    assert checks["files"] == "files 1/2, missing: /repo/b.py"  # a failed write is not a file
    assert checks["requests"] == "requests 1/1"


def test_the_check_counts_a_named_request_as_held_by_reference() -> None:
    messages = [HumanMessage("first"), AIMessage("ok"), HumanMessage("second"), AIMessage("ok")]
    a = artifact(
        2,
        goal="first",
        user_messages=[
            "(omitted: 1 earlier answered requests; read_history(session, start) at 1:3)"
        ],
    )
    (requests,) = [
        c
        for c in check(a, take_inventory(messages), locate=lambda i: (1, i + 1))
        if c.kind == "requests"
    ]
    assert (requests.covered, requests.total, requests.referenced) == (2, 2, 1)


def test_a_failed_command_is_reported_with_what_fixed_it() -> None:
    notes = errors_and_fixes(
        [
            CommandRun(
                command="pytest -q",
                exit_status=1,
                error="AssertionError: 2 != 3",
                cause="The test fails because the last row is dropped.",
            ),
            CommandRun(command="ls", exit_status=0, changed_before=["a.py"]),
            CommandRun(command="pip install attrs", exit_status=0),
            CommandRun(
                command="cd src && python -m pytest -q", exit_status=0, changed_before=["b.py"]
            ),
            CommandRun(command="make lint", exit_status=2, error="E501 line too long"),
            CommandRun(command="flaky", exit_status=1),
            CommandRun(command="flaky", exit_status=0),
        ]
    )
    assert notes == [
        "Still failing: `make lint` (exit 2; output: “E501 line too long”)",
        "`flaky` failed (exit 1); passed after running it again, nothing changed in between",
        "`pytest -q` failed (exit 1; output: “AssertionError: 2 != 3”); passed after running "
        "`pip install attrs`; cause: “The test fails because the last row is dropped.”",
    ]


def test_a_traceback_is_a_failure_when_no_exit_status_is_reported() -> None:
    facts = extract_facts(
        [
            AIMessage(
                "",
                tool_calls=[
                    {"name": "bash", "id": "1", "args": {"command": "python reproduce.py"}}
                ],
            ),
            ToolMessage(
                'Traceback (most recent call last):\n  File "r.py"\nTypeError: bad date',
                tool_call_id="1",
            ),
            AIMessage(
                "The date is parsed before the timezone is known, that's why it breaks.",
                tool_calls=[{"name": "edit_file", "id": "2", "args": {"path": "/repo/dates.py"}}],
            ),
            ToolMessage("edited", tool_call_id="2"),
            AIMessage(
                "",
                tool_calls=[
                    {"name": "bash", "id": "3", "args": {"command": "python reproduce.py"}}
                ],
            ),
            ToolMessage("2024-01-01", tool_call_id="3"),
        ]
    )
    assert errors_and_fixes(facts.commands) == [
        "`python reproduce.py` failed (error; output: “TypeError: bad date”); passed after "
        "other changes (1 file it does not name); cause: “The date is parsed before the "
        "timezone is known, that's why it breaks.”"
    ]


def test_the_budget_omits_old_answered_requests_and_names_where_they_are() -> None:
    messages = [f"[1:{n}] request number {n} " + "word " * 30 for n in range(1, 41)]
    big = artifact(
        1,
        goal="Build it",
        user_messages=[*messages, "[2:3 open] the open one"],
        constraints=["Never use pandas."],
        next_step="write tests",
    )
    fitted, tokens = fit_to_budget(big, 400, words)
    assert tokens <= 400
    marker, *kept = fitted.user_messages
    assert marker.startswith("(omitted: ") and "earlier answered requests" in marker
    # Every request is held or named by its place; the open one and the newest stay.
    assert kept[-1] == "[2:3 open] the open one" and kept[-2] == messages[-1]
    named = named_places([marker])
    held = {int(k.split(":")[1].split("]")[0]) for k in kept[:-1]}
    assert named | {(1, n) for n in held} == {(1, n) for n in range(1, 41)}
    assert fitted.goal == "Build it" and fitted.constraints == ["Never use pandas."]
    assert fitted.next_step == "write tests"


def test_trimming_again_merges_into_the_omitted_line() -> None:
    first, _ = fit_to_budget(
        artifact(1, completed_work=[f"Commit {n:07x}: change {n}" for n in range(1, 30)]),
        120,
        words,
    )
    again, _ = fit_to_budget(
        first.model_copy(
            update={
                "completed_work": [
                    *first.completed_work,
                    *(f"Commit {n:07x}: change {n}" for n in range(30, 60)),
                ]
            }
        ),
        120,
        words,
    )
    (line,) = [i for i in again.completed_work if i.startswith("(omitted")]
    kept = [i for i in again.completed_work if not i.startswith("(omitted")]
    count = int(line.split()[1])
    assert count + len(kept) == 59 and "0000001…" in line


def test_a_long_request_is_capped_and_names_the_call_that_shows_it_whole() -> None:
    task = "Parse this log. " + "line of the pasted log " * 300
    facts = extract_facts([HumanMessage("Start"), AIMessage("ok"), HumanMessage(task)])
    from agent_core.handoff._facts_only import facts_only_fields

    fields = facts_only_fields(
        facts, session_number=1, utilization=0.5, locate=lambda i: (4, i + 1)
    )
    (item,) = fields["user_messages"]
    assert item.startswith("[4:3 open] Parse this log. line of the pasted log")
    assert item.endswith("characters: read_history(session=4, start=3) shows it all]")
    assert len(item) < 700


async def test_the_facts_only_note_carries_goal_requests_errors_and_real_todo_status() -> None:
    messages = [
        HumanMessage("Build a CSV importer. Never use pandas."),
        *shell("1", "pytest -q", 1),
        AIMessage(
            "", tool_calls=[{"name": "edit_file", "id": "e", "args": {"path": "/repo/importer.py"}}]
        ),
        ToolMessage("edited", tool_call_id="e"),
        AIMessage(
            "",
            tool_calls=[
                {
                    "name": "write_todos",
                    "id": "t",
                    "args": {
                        "todos": [
                            {"content": "Parser", "status": "completed"},
                            {"content": "Tab support", "status": "in_progress"},
                            {"content": "Upload to S3", "status": "blocked"},
                        ]
                    },
                }
            ],
        ),
        ToolMessage("ok", tool_call_id="t"),
        *shell("2", "pytest -q", 0),
        HumanMessage("also handle tabs"),
        AIMessage(
            "On it, next I'll split on tabs too.",
            tool_calls=[{"name": "read_file", "id": "r", "args": {"path": "importer.py"}}],
        ),
        ToolMessage("…", tool_call_id="r"),
    ]
    result = await generate_handoff(
        None,
        messages,
        session_number=1,
        trigger="auto",
        utilization=0.8,
        model_name="m",
        count_tokens=words,
    )
    a = result.artifact
    assert a.goal == "Build a CSV importer. Never use pandas."
    assert a.constraints == []  # its words are in the goal: said once
    assert a.user_messages == ["[open] also handle tabs"]  # the goal is not repeated
    assert a.in_progress[0] == "Todo (2 of 3): Tab support"
    assert a.next_step == "“On it, next I'll split on tabs too.”"
    assert a.errors_and_fixes == [
        "`pytest -q` failed (exit 1; output: “output”); passed after other changes "
        "(1 file it does not name)"
    ]
    assert [(t.content, t.status) for t in a.open_todos] == [
        ("Tab support", "in_progress"),
        ("Upload to S3", "blocked"),
    ]
    assert a.remaining_tasks == []  # the open todos say it
    assert {str(c) for c in a.checks} >= {"requests 2/2", "todos 2/2", "files 1/1"}


async def test_a_model_draft_is_merged_into_the_previous_handoff() -> None:
    previous = artifact(
        1,
        goal="Build a CSV importer",
        completed_work=["Parser skeleton"],
        key_decisions=["csv module"],
    )
    draft = {
        "completed_work": ["Tab support"],
        "remaining_tasks": ["Docs"],
        "current_state_summary": "Tabs work.",
        "constraints": ["use pandas everywhere"],
        "next_step": "something never said",
    }
    model_messages = [HumanMessage("also handle tabs"), AIMessage("Done.")]

    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

    model = GenericFakeChatModel(messages=iter([AIMessage(json.dumps(draft))]))
    result = await generate_handoff(
        model,
        model_messages,
        previous=previous,
        session_number=2,
        trigger="auto",
        utilization=0.8,
        model_name="m",
        count_tokens=words,
    )
    a = result.artifact
    assert a.goal == "Build a CSV importer"
    assert a.completed_work == ["Parser skeleton", "Tab support"]
    assert a.key_decisions == ["csv module"]
    assert a.user_messages == ["also handle tabs"]
    assert a.constraints == []  # the model's "constraint" is not the user's words
    assert a.next_step == ""  # nor is its next step a quote, and the evidence has none


async def test_a_model_handoff_that_contradicts_the_evidence_is_corrected_and_says_so() -> None:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

    messages = [
        HumanMessage("Build the importer"),
        AIMessage(
            "",
            tool_calls=[
                {
                    "name": "write_todos",
                    "id": "t",
                    "args": {
                        "todos": [
                            {"content": "Parser", "status": "completed"},
                            {"content": "Quoted fields", "status": "in_progress"},
                        ]
                    },
                }
            ],
        ),
        ToolMessage("ok", tool_call_id="t"),
        *shell("1", "pytest tests/test_quoted.py", 1, "AssertionError: 3 != 2"),
    ]
    draft = {
        "completed_work": ["Parser", "Quoted fields"],
        "in_progress": ["Polishing"],
        "remaining_tasks": ["Docs"],
        "current_state_summary": "All tests pass.",
    }
    model = GenericFakeChatModel(messages=iter([AIMessage(json.dumps(draft))]))
    result = await generate_handoff(
        model,
        messages,
        session_number=1,
        trigger="auto",
        utilization=0.8,
        model_name="m",
        count_tokens=words,
    )
    a = result.artifact
    assert a.in_progress[0] == "Todo (2 of 2): Quoted fields"
    assert a.errors_and_fixes[0].startswith("Still failing: `pytest tests/test_quoted.py`")
    assert len(a.disagreements) == 4
    assert any("“Quoted fields” as done" in d for d in a.disagreements)
    # "All tests pass." above a failing check is replaced by the count from the lists.
    assert "State: “All tests pass.” replaced by the count from the lists" in a.disagreements
    assert "All tests pass" not in a.current_state_summary


def test_importer_marks_are_never_requests() -> None:
    facts = extract_facts(
        [
            HumanMessage("Fix the bug"),
            HumanMessage(
                "<task-notification>done</task-notification>",
                additional_kwargs={"not_user": "task_notification"},
            ),
            HumanMessage("Fix the bug", additional_kwargs={"carried_over_from": "m1"}),
            HumanMessage("# Fix any errors below, if possible.\n\n## Running: flake8 x.py"),
        ]
    )
    assert facts.user_requests == ["Fix the bug"]


async def test_the_goal_changes_only_when_the_user_is_quoted_replacing_it() -> None:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

    previous = artifact(1, goal="Build a CSV importer")
    said = "Forget the importer: build a JSON exporter instead."
    messages = [HumanMessage(said), AIMessage("Switching.")]

    async def handoff(new_goal: str) -> HandoffArtifact:
        draft = {
            "completed_work": ["x"],
            "remaining_tasks": ["y"],
            "current_state_summary": "z",
            "new_goal": new_goal,
        }
        model = GenericFakeChatModel(messages=iter([AIMessage(json.dumps(draft))]))
        result = await generate_handoff(
            model,
            messages,
            previous=previous,
            session_number=2,
            trigger="auto",
            utilization=0.8,
            model_name="m",
            count_tokens=words,
        )
        return result.artifact

    assert (await handoff(said)).goal == said
    assert (await handoff("Build an exporter")).goal == "Build a CSV importer"  # not a quote
    assert (await handoff("")).goal == "Build a CSV importer"


def test_too_many_omitted_requests_to_list_are_named_by_where_they_end() -> None:
    messages = [f"[1:{n}] request {n} " + "word " * 20 for n in range(1, 401)]
    fitted, tokens = fit_to_budget(artifact(1, goal="Build it", user_messages=messages), 500, words)
    assert tokens <= 500
    marker = fitted.user_messages[0]
    kept = fitted.user_messages[1:]
    from agent_core.handoff._omitted import named_before

    up_to = named_before([marker])
    first_kept = int(kept[0].split(":")[1].split("]")[0])
    assert up_to == (1, first_kept - 1)  # every earlier one is named by the rule
    assert int(marker.split()[1]) + len(kept) == 400


def test_many_long_open_requests_are_cut_shorter_until_the_artifact_fits() -> None:
    # Open requests are never dropped; a text cut before is cut again, its note counting both.
    long = "Please do this. " + "log line with details " * 200
    messages = [f"[1:{n} open] {long}{n}" for n in range(1, 31)]
    fitted, tokens = fit_to_budget(artifact(1, goal="start", user_messages=messages), 1500, words)
    assert tokens <= 1500 and len(fitted.user_messages) == 30
    first = fitted.user_messages[0]
    assert first.startswith("[1:1 open] Please do this.")
    cut = int(first.rsplit("[+", 1)[1].split()[0].replace(",", ""))
    assert len(first.split("] ", 1)[1].split("… [+")[0]) + cut == len(long) + 1
    assert first.endswith("read_history(session=1, start=1) shows it all]")


def test_a_session_that_did_not_rewrite_its_todos_still_names_the_todo_under_way() -> None:
    previous = artifact(
        1,
        in_progress=["Todo (2 of 3): Tabs"],
        open_todos=[Todo(content="Tabs", status="in_progress"), Todo(content="Docs")],
    )
    current = artifact(2, in_progress=["Changed since the last completed item: tabs.py"])
    merged = merge_previous(current, previous, todos_recorded=False, replied=False)
    assert merged.in_progress == [
        "Todo (1 of 2 open): Tabs",
        "Changed since the last completed item: tabs.py",
    ]


async def test_a_model_silent_on_the_changed_files_gets_them_from_the_evidence() -> None:
    # A session that wrote no todo list has no todo line: the evidence lines are still added.
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

    messages = [
        HumanMessage("go on"),
        *[
            AIMessage("", tool_calls=[{"name": "write_file", "id": "w", "args": {"path": "t.py"}}]),
            ToolMessage("ok", tool_call_id="w"),
        ],
        *shell("1", "make check", 1),
    ]
    draft = {
        "completed_work": ["x"],
        "in_progress": ["Writing the tests"],
        "remaining_tasks": ["y"],
        "current_state_summary": "z",
    }
    model = GenericFakeChatModel(messages=iter([AIMessage(json.dumps(draft))]))
    result = await generate_handoff(
        model,
        messages,
        session_number=1,
        trigger="auto",
        utilization=0.8,
        model_name="m",
        count_tokens=words,
    )
    assert result.artifact.in_progress == [
        "Writing the tests",
        "Changed since the last completed item: t.py",
        "Failing: `make check`",
    ]
