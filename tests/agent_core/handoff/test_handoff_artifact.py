"""HandoffArtifact: exact markdown and JSON round-trips, and reading what models write."""

from __future__ import annotations

import textwrap
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core.handoff._artifact import (
    CoverageCheck,
    FileChange,
    HandoffArtifact,
    Todo,
    artifact_from_json,
    artifact_to_json,
    handoff_context_message,
    handoff_filename,
)
from agent_core.handoff._draft import draft_from_text, draft_from_value

_TRICKY = [
    "",
    " ",
    "# heading",
    "## Completed Work",
    "- dash",
    "* star",
    "`code`",
    "```",
    "\\",
    "\\#",
    "  leading",
    "trailing  ",
    "a\nb",
    "line\n\n",
    "\n## In Progress\n- x",
    "<!-- c -->",
    "-->",
    "ünïcødé ✓ 日本語 🚀",
    "[ ] box",
    "\t tab",
    "\r carriage",
]
text = st.one_of(st.text(max_size=40), st.sampled_from(_TRICKY))
items = st.lists(text, max_size=4)
single = st.one_of(st.text(min_size=1, max_size=30), st.sampled_from(_TRICKY[1:]))
paths = single.filter(lambda p: p.split())

files = st.builds(
    FileChange,
    path=paths,
    verified=st.booleans(),
    evidence=st.one_of(st.none(), single),
    sessions=st.lists(st.integers(1, 500), max_size=3),
)
checks = st.builds(
    CoverageCheck,
    kind=st.sampled_from(["files", "todos", "requests", "commits", "pinned"]),
    covered=st.integers(0, 999),
    total=st.integers(0, 999),
    referenced=st.integers(0, 9),
    missing=st.lists(single.filter(lambda m: "; " not in m and m.strip() == m), max_size=2),
)
todos = st.builds(
    Todo,
    content=text,
    status=st.sampled_from(["pending", "in_progress", "completed", "blocked"]),
    id=st.one_of(st.none(), single),
    parent_id=st.one_of(st.none(), single),
)
artifacts = st.builds(
    HandoffArtifact,
    session_number=st.integers(1, 10_000),
    trigger=st.sampled_from(["auto", "manual", "overflow"]),
    utilization=st.floats(0, 3, allow_nan=False),
    model=text,
    created_at=st.datetimes(timezones=st.just(UTC)),
    focus=st.one_of(st.none(), text),
    goal=text,
    constraints=items,
    user_messages=items,
    completed_work=items,
    in_progress=items,
    next_step=text,
    remaining_tasks=items,
    key_decisions=items,
    errors_and_fixes=items,
    files_modified=st.lists(files, max_size=3),
    files_read=st.lists(single, max_size=3),
    current_state_summary=text,
    open_todos=st.lists(todos, max_size=3),
    pinned_files=st.lists(single, max_size=3),
    checks=st.lists(checks, max_size=3),
    previous_handoff=st.one_of(st.none(), text),
)


@settings(max_examples=300, deadline=None)
@given(artifacts)
def test_markdown_reads_back_as_what_it_shows(artifact: HandoffArtifact) -> None:
    markdown = artifact.to_markdown()
    parsed = HandoffArtifact.from_markdown(markdown)
    assert parsed == artifact.shown()
    assert parsed.to_markdown() == markdown


@settings(max_examples=100, deadline=None)
@given(artifacts)
def test_json_round_trip_is_exact(artifact: HandoffArtifact) -> None:
    assert artifact_from_json(artifact_to_json(artifact)) == artifact


def _sample() -> HandoffArtifact:
    return HandoffArtifact(
        session_number=3,
        trigger="auto",
        utilization=0.82,
        model="gpt-4",
        created_at=datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC),
        completed_work=["Built auth"],
        remaining_tasks=["Tests"],
        current_state_summary="Auth works.",
        files_modified=[FileChange(path="a.py", verified=True, evidence="write_file")],
        open_todos=[Todo(content="write tests", status="in_progress", id="t1")],
        pinned_files=["PLAN.md"],
        previous_handoff="HANDOFF-2.md",
    )


def test_an_artifact_with_nothing_in_it_has_no_sections() -> None:
    bare = HandoffArtifact(session_number=1, trigger="manual", utilization=0, model="m")
    assert "## " not in bare.to_markdown()
    assert HandoffArtifact.from_markdown(bare.to_markdown()) == bare


def test_markdown_is_readable_with_the_usual_sections() -> None:
    markdown = _sample().to_markdown()
    for heading in (
        "## Completed Work",
        "## Remaining Tasks",
        "## Files Modified",
        "## State Summary",
        "## Open Todos",
    ):
        assert heading in markdown
    assert "## Key Decisions" not in markdown  # empty sections cost nothing
    assert "- a.py" in markdown and "write_file" not in markdown
    assert "- [~] write tests" in markdown


def test_files_are_grouped_by_directory_with_their_sessions() -> None:
    files = [
        FileChange(path=p, verified=True, sessions=s)
        for p, s in (
            ("src/parser/csv.py", [1, 2, 3]),
            ("README.md", [1]),
            ("src/parser/dates.py", [2, 5]),
            ("tests/test_csv.py", [1, 3]),
        )
    ]
    files.append(FileChange(path="src/parser/notes, draft.md", verified=False))
    markdown = _sample().model_copy(update={"files_modified": files}).to_markdown()
    assert (
        '- src/parser/: csv.py (1-3), dates.py (2,5), ?"notes, draft.md"\n'
        "- README.md (1)\n- tests/: test_csv.py (1,3)\n"
    ) in markdown
    assert [f.path for f in HandoffArtifact.from_markdown(markdown).files_modified] == [
        "src/parser/csv.py",
        "src/parser/dates.py",
        "src/parser/notes, draft.md",
        "README.md",
        "tests/test_csv.py",
    ]


_DATA = Path(__file__).parent.parent / "data"


def test_a_stored_v1_artifact_still_loads_and_renders() -> None:
    stored = (_DATA / "handoff_v1.json").read_text(encoding="utf-8")
    artifact = artifact_from_json(stored)
    assert artifact.completed_work == ["Built the login form"]
    assert artifact.files_modified[0].sessions == []
    assert (artifact.goal, artifact.user_messages, artifact.checks) == ("", [], [])
    assert HandoffArtifact.from_markdown(artifact.to_markdown()) == artifact.shown()


def test_a_v1_handoff_file_still_parses() -> None:
    v1 = "\n".join(
        [
            '<!-- baton-handoff {"created_at": "2025-01-02T03:04:05Z", "focus": null, "model": "m", '
            '"previous_handoff": null, "session_number": 2, "trigger": "auto", "utilization": 0.8} -->',
            "# Handoff: session 2 (auto, 80% of context, m)",
            "",
            "## Completed Work",
            "",
            "- a",
            "",
            "## In Progress",
            "",
            "## Remaining Tasks",
            "",
            "- b",
            "",
            "## Key Decisions",
            "",
            "## Files Modified",
            "",
            "- x.py",
            "  verified",
            "",
            "## State Summary",
            "",
            "ok",
            "",
            "## Open Todos",
            "",
            "- [ ] b",
            "",
            "## Pinned Files",
            "",
            "",
        ]
    )
    artifact = HandoffArtifact.from_markdown(v1)
    assert (artifact.completed_work, artifact.remaining_tasks) == (["a"], ["b"])
    assert artifact.files_modified[0].path == "x.py" and artifact.current_state_summary == "ok"


def test_v3_sections_are_written_in_the_file() -> None:
    artifact = _sample().model_copy(
        update={
            "goal": "Build a CSV importer",
            "constraints": ["never use pandas"],
            "user_messages": ["also handle tabs"],
            "next_step": "write tests",
            "files_read": ["README.md"],
            "checks": [
                CoverageCheck(kind="files", covered=16, total=17, missing=["b.py"]),
                CoverageCheck(kind="commits", covered=0, total=0),
            ],
            "files_modified": [FileChange(path="a.py", verified=True, sessions=[1, 3])],
        }
    )
    markdown = artifact.to_markdown()
    for line in (
        "## Goal\n\nBuild a CSV importer",
        "- never use pandas",
        "- also handle tabs",
        "## Next Step\n\nwrite tests",
        "- a.py (1,3)",
        "- files 16/17, missing: b.py",
    ):
        assert line in markdown
    assert "commits" not in markdown
    assert HandoffArtifact.from_markdown(markdown) == artifact.shown()


def test_a_v2_handoff_file_still_parses() -> None:
    v2 = "\n".join(
        [
            '<!-- baton-handoff {"created_at": "2025-01-02T03:04:05Z", "focus": null, "model": "m", '
            '"previous_handoff": null, "session_number": 2, "trigger": "auto", "utilization": 0.8} -->',
            "# Handoff: session 2 (auto, 80% of context, m)",
            "",
            "## Goal",
            "",
            "g",
            "",
            "## Constraints",
            "",
            "## User Messages",
            "",
            "- u",
            "",
            "## Completed Work",
            "",
            "- a",
            "",
            "## In Progress",
            "",
            "## Next Step",
            "",
            "n",
            "",
            "## Remaining Tasks",
            "",
            "- b",
            "",
            "## Key Decisions",
            "",
            "## Errors and Fixes",
            "",
            "## Files Modified",
            "",
            "- x.py",
            "  verified: edit_file",
            "  sessions: 1, 2",
            "",
            "## Files Read",
            "",
            "## State Summary",
            "",
            "ok",
            "",
            "## Open Todos",
            "",
            "- [ ] b",
            "  id: t1",
            "",
            "## Pinned Files",
            "",
            "## Checks",
            "",
            "- files 1/1",
            "",
        ]
    )
    artifact = HandoffArtifact.from_markdown(v2)
    assert (artifact.goal, artifact.user_messages, artifact.next_step) == ("g", ["u"], "n")
    assert artifact.files_modified == [
        FileChange(path="x.py", verified=True, evidence="edit_file", sessions=[1, 2])
    ]
    assert artifact.open_todos[0].id == "t1" and str(artifact.checks[0]) == "files 1/1"


def test_strict_model_rejects_unknown_fields_and_bad_values() -> None:
    with pytest.raises(ValueError):
        HandoffArtifact(session_number=1, trigger="auto", utilization=0.5, model="m", extra=1)
    with pytest.raises(ValueError):
        HandoffArtifact(session_number=0, trigger="auto", utilization=0.5, model="m")
    with pytest.raises(ValueError):
        HandoffArtifact(session_number=1, trigger="sometimes", utilization=0.5, model="m")


def test_from_markdown_rejects_foreign_text() -> None:
    with pytest.raises(ValueError):
        HandoffArtifact.from_markdown("## Completed Work\n- something\n")


def test_filename_and_context_message() -> None:
    artifact = _sample()
    assert handoff_filename(3) == "HANDOFF-3.md"
    message = handoff_context_message(artifact)
    assert message.startswith("<handoff-context>\n")
    assert artifact.to_markdown() in message
    assert "</handoff-context>" in message and "Continue" in message


SPEC_MARKDOWN = """## Completed Work
- Built user authentication
- Created database schema
## In Progress
- Building API endpoints for /users
## Remaining Tasks
- Frontend components
- Tests
## Key Decisions
- Using JWT for auth tokens
## Files Modified
- backend/src/routes/auth.py
## State Summary
Auth system is functional, API layer is 50% complete."""


def test_draft_from_spec_markdown() -> None:
    assert draft_from_text(SPEC_MARKDOWN) == {
        "completed_work": ["Built user authentication", "Created database schema"],
        "in_progress": ["Building API endpoints for /users"],
        "remaining_tasks": ["Frontend components", "Tests"],
        "key_decisions": ["Using JWT for auth tokens"],
        "files_modified": ["backend/src/routes/auth.py"],
        "current_state_summary": "Auth system is functional, API layer is 50% complete.",
    }


def test_draft_from_fenced_and_truncated_json() -> None:
    fenced = 'Here you go:\n```json\n{"completed_work": ["a"], "current_state_summary": "s"}\n```'
    assert draft_from_text(fenced) == {"completed_work": ["a"], "current_state_summary": "s"}
    truncated = '{"completed_work": ["a", "b"], "remaining_tasks": ["c'
    assert draft_from_text(truncated)["completed_work"] == ["a", "b"]


def test_draft_from_prose_is_empty() -> None:
    assert draft_from_text("I'm sorry, I cannot help with that.") == {}
    assert draft_from_text("") == {}


def test_draft_coerces_wrong_types() -> None:
    draft = draft_from_value(
        {
            "completed_work": "- one\n- two",
            "remaining_tasks": [1, {"task": "x"}, None],
            "current_state_summary": ["a", "b"],
            "files_modified": [{"path": "f.py"}],
            "junk": 3,
        }
    )
    assert draft == {
        "completed_work": ["one", "two"],
        "remaining_tasks": ["1", "x"],
        "current_state_summary": "a\nb",
        "files_modified": ["f.py"],
    }
    assert draft_from_value(["not", "a", "mapping"]) == {}


# The same mocked handoff indented as the original specification has it (in a code sample).
SPEC_EXAMPLE = "\n" + textwrap.indent(SPEC_MARKDOWN, "    ") + "\n    "


def test_the_specs_indented_example_reads_like_the_dedented_one() -> None:
    indented, flat = draft_from_text(SPEC_EXAMPLE), draft_from_text(textwrap.dedent(SPEC_EXAMPLE))
    assert indented == flat
    assert indented["completed_work"] == ["Built user authentication", "Created database schema"]
    assert indented["in_progress"] == ["Building API endpoints for /users"]
    assert indented["remaining_tasks"] == ["Frontend components", "Tests"]
    assert indented["key_decisions"] == ["Using JWT for auth tokens"]
    assert indented["files_modified"] == ["backend/src/routes/auth.py"]
    assert (
        indented["current_state_summary"] == "Auth system is functional, API layer is 50% complete."
    )


def test_a_reply_that_cannot_be_read_is_logged_as_a_warning(caplog) -> None:
    with caplog.at_level("WARNING", logger="agent_core.handoff._draft"):
        assert draft_from_text("I'm sorry, I cannot help with that.") == {}
    assert "no JSON and no recognisable sections" in caplog.text


def test_a_lone_surrogate_escaped_in_a_models_json_is_made_storable() -> None:
    # Found by the fuzz test: '"file": [null, "\ud800"' failed the artifact's validation.
    draft = draft_from_text('{"files_modified": [null, "\\ud800"], "completed_work": ["a\\udfff"]}')
    assert draft["files_modified"] == ["\ufffd"]
    assert draft["completed_work"] == ["a\ufffd"]
