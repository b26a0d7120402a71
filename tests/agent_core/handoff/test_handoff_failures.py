"""A failure is fixed when its operation passes, however the passing command is worded, and
the lesson says what fixed it and why (issue 42: "What was found" 3 and 5)."""

from __future__ import annotations

import itertools

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from agent_core.handoff._artifact import HandoffArtifact
from agent_core.handoff._facts import extract_facts
from tests.agent_core.handoff.writer import written

_ids = itertools.count(1)


def call(name: str, args: dict, output: str, text: str = "") -> list[BaseMessage]:
    call_id = f"c{next(_ids)}"
    return [
        AIMessage(text, tool_calls=[{"name": name, "id": call_id, "args": args}]),
        ToolMessage(output, tool_call_id=call_id, name=name),
    ]


def run(command: str, status: int, output: str = "", text: str = "") -> list[BaseMessage]:
    return call("run_command", {"command": command}, f"{output}\n[exit status {status}]", text)


def edit(path: str, text: str = "") -> list[BaseMessage]:
    return call("edit_file", {"path": path, "old": "a", "new": "b"}, f"Edited {path}", text)


def handoff(messages: list[BaseMessage], previous=None, number=1) -> HandoffArtifact:
    return written(messages, previous=previous, number=number)


PAIRS = [
    pytest.param(
        "git push",
        "fatal: The current branch feature has no upstream branch.",
        "git push --set-upstream origin feature",
        id="push-then-set-upstream",
    ),
    pytest.param(
        "git add assets/app.css",
        "The following paths are ignored by one of your .gitignore files:\nassets\n"
        "hint: Use -f if you really want to add them.",
        "git add -f assets/app.css",
        id="add-then-force-add",
    ),
    pytest.param(
        "mix credo --strict lib/app/worker.ex",
        "** (Mix) Could not find module App.Worker: compile first",
        "mix compile && mix credo --strict lib/app/worker.ex",
        id="credo-then-compile-and-credo",
    ),
]


@pytest.mark.parametrize(("failed", "output", "passed"), PAIRS)
def test_a_failure_fixed_by_a_differently_worded_command_is_not_still_failing(
    failed: str, output: str, passed: str
) -> None:
    messages = [
        HumanMessage("Ship the stylesheet change."),
        *run(failed, 1, output),
        *run(passed, 0, "ok"),
        AIMessage("", tool_calls=[{"name": "read_file", "id": "r", "args": {"path": "x.md"}}]),
        ToolMessage("notes", tool_call_id="r"),
    ]
    facts = extract_facts(messages)
    assert facts.progress.failing is None
    a = handoff(messages)
    assert not any(line.startswith("Still failing") for line in a.errors_and_fixes)
    assert not any(line.startswith("Failing:") for line in a.in_progress)
    assert failed not in a.next_step
    (lesson,) = a.errors_and_fixes
    assert lesson.startswith(f"`{failed}` failed (exit 1; output: “")
    assert f"passed as `{passed}`" in lesson


def test_an_unrelated_passing_command_does_not_fix_a_failure() -> None:
    messages = [
        HumanMessage("Run the tests."),
        *run("pytest tests/test_a.py", 1, "E   AssertionError"),
        *run("pytest tests/test_b.py", 0, "1 passed"),
        *run("git push origin main", 0, ""),
    ]
    a = handoff(messages)
    assert a.errors_and_fixes[0].startswith("Still failing: `pytest tests/test_a.py`")


def test_the_gitignore_gotcha_is_told_as_knowledge() -> None:
    messages = [
        HumanMessage("Commit the compiled CSS."),
        *run(
            "git add assets/app.css",
            1,
            "The following paths are ignored by one of your .gitignore files:\nassets\n"
            "hint: Use -f if you really want to add them.",
        ),
        *run("git add -f assets/app.css", 0),
    ]
    (lesson,) = handoff(messages).errors_and_fixes
    assert "gotcha: assets/app.css is gitignored: force-add it (`git add -f`)" in lesson


def test_committing_the_work_resolves_the_failure_it_blocked_but_not_a_push() -> None:
    messages = [
        HumanMessage("Finish the parser."),
        *run("git push", 1, "fatal: could not read from remote repository"),
        *run("make lint", 2, "E501 line too long"),
        *run('git commit -am "parser done"', 0, "[main abc1234] parser done"),
    ]
    lessons = handoff(messages).errors_and_fixes
    assert lessons[0].startswith("Still failing: `git push`")
    assert lessons[1].startswith("`make lint` failed (exit 2; output: “E501 line too long”)")
    assert "resolved: the work it blocked was committed or closed" in lessons[1]


def test_a_fix_is_credited_to_the_file_the_failure_names_never_a_deleted_one() -> None:
    messages = [
        HumanMessage("Fix the date test."),
        *run(
            "pytest tests/test_dates.py",
            1,
            'tests/test_dates.py:4: in test_tz\n  File "src/dates.py", line 9\nE   TypeError: tz',
        ),
        *edit("src/notes.txt"),
        *call("write_file", {"path": "scratch.py", "content": "x"}, "Wrote scratch.py"),
        *edit("src/dates.py", text="It fails because the timezone is applied too late."),
        *run("rm scratch.py", 0),
        *run("pytest tests/test_dates.py", 0, "1 passed"),
    ]
    (lesson,) = handoff(messages).errors_and_fixes
    assert "passed after editing src/dates.py;" in lesson
    assert "notes.txt" not in lesson and "scratch.py" not in lesson
    assert lesson.endswith("cause: “It fails because the timezone is applied too late.”")


def test_the_cause_is_the_diagnosis_nearest_the_fix() -> None:
    messages = [
        HumanMessage("Fix the importer."),
        *run("pytest tests/test_rows.py", 1, "E   AssertionError: 2 != 3"),
        AIMessage("Maybe it fails because of the fixture file."),
        AIMessage("No: the test fails because the parser drops the last row."),
        *edit("tests/test_rows.py"),
        *run("pytest tests/test_rows.py", 0, "3 passed"),
    ]
    (lesson,) = handoff(messages).errors_and_fixes
    assert lesson.endswith("cause: “No: the test fails because the parser drops the last row.”")


def test_a_failure_fixed_in_a_later_session_leaves_the_chain() -> None:
    first = [
        HumanMessage("Publish the feature branch."),
        *run("git push", 128, "fatal: The current branch feature has no upstream branch."),
    ]
    one = handoff(first)
    assert one.errors_and_fixes[0].startswith("Still failing: `git push`")
    assert one.next_step.startswith("Make `git push` pass")
    second = [*run("git push --set-upstream origin feature", 0, "branch set up")]
    two = handoff(second, previous=one, number=2)
    assert not any(line.startswith("Still failing") for line in two.errors_and_fixes)
    # Only the passing run may be named ("At the cut"), never the fixed failure.
    assert not any(line.startswith("Failing:") for line in two.in_progress)
    assert all("(exit 128)" not in line for line in two.in_progress)
    assert "git push" not in two.next_step
    assert (
        "`git push` failed in an earlier session; it passed in session 2: "
        "`git push --set-upstream origin feature`"
    ) in two.errors_and_fixes
    # Carried on, it stays fixed: a third session that never pushes does not revive it.
    three = handoff([*run("ls", 0, "a.py")], previous=two, number=3)
    assert not any(line.startswith("Still failing") for line in three.errors_and_fixes)


def test_an_earlier_failure_the_session_never_touched_is_still_failing() -> None:
    one = handoff([HumanMessage("Go."), *run("pytest -q", 1, "E   KeyError: 'x'")])
    two = handoff([*run("git status", 0, "clean")], previous=one, number=2)
    assert two.errors_and_fixes[0].startswith("Still failing: `pytest -q`")


@pytest.mark.parametrize(
    ("one", "other", "same"),
    [
        ("git add X", "git add -f X", True),
        ("git push", "git push --set-upstream origin B", True),
        ("cd src && python -m pytest -q", "pytest -q 2>&1 | tail -5", True),
        ("git -c core.x=1 commit -m one", "git commit -m two", True),
        ("pytest", "pytest tests/test_a.py", False),
        ('python -c "import a"', 'python -c "import b"', False),
        ("git add X", "git add Y", False),
    ],
)
def test_commands_are_compared_by_operation(one: str, other: str, same: bool) -> None:
    from agent_core.handoff._operations import same_operation

    assert same_operation(one, other) is same


def test_a_command_the_user_interrupted_is_neither_failing_nor_a_step_to_take() -> None:
    # pi reports a command the user stopped as an error whose whole output is this line.
    stopped = call("bash", {"command": "npm run check 2>&1 | head -40"}, "Command aborted")
    stopped[1].status = "error"
    messages = [HumanMessage("Move the files to their final place."), *stopped]
    artifact = handoff(messages)
    assert not any(line.startswith("Still failing") for line in artifact.errors_and_fixes)
    assert not any(line.startswith("Failing:") for line in artifact.in_progress)
    assert "npm run check" not in artifact.next_step
    assert any("(interrupted)" in line for line in artifact.in_progress)
