"""Baton's own agent sessions, written the way the engine stores them (Baton's tools:
``write_todos``, ``write_file``, ``edit_file``, ``run_command`` with ``[exit status N]``), each
with what its next session must know, known by construction rather than read back.

Used by ``bench.continuity`` (probe kinds the public datasets cannot give: in progress, next
step, messages typed while the agent worked, lessons) and by the handoff tests.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

__all__ = [
    "Session",
    "todos_cut",
    "queued_while_working",
    "failure_fixed",
    "chain",
    "tracker_shell",
    "plan_file",
    "numbered_plan",
    "fixed_differently",
    "task_chain",
    "fixed_next_session",
    "TASKS",
]

_ids = itertools.count(1)


@dataclass
class Session:
    """A session's messages and, by probe kind, the texts its handoff must hold."""

    name: str
    messages: list[BaseMessage]
    probes: dict[str, list[str]] = field(default_factory=dict)
    #: Probe kinds that must be found in one section of the artifact, by kind.
    sections: dict[str, str] = field(default_factory=dict)


def _call(name: str, args: dict, output: str, *, text: str = "") -> list[BaseMessage]:
    call_id = f"call_{next(_ids)}"
    return [
        AIMessage(text, tool_calls=[{"name": name, "id": call_id, "args": args}]),
        ToolMessage(output, tool_call_id=call_id, name=name),
    ]


def _todos(items: list[str], done: int, active: int | None) -> list[BaseMessage]:
    todos = [
        {
            "id": f"t{n + 1}",
            "content": item,
            "status": "completed" if n < done else "in_progress" if n == active else "pending",
        }
        for n, item in enumerate(items)
    ]
    return _call("write_todos", {"todos": todos}, "Updated the todo list")


def _run(command: str, status: int, output: str = "", text: str = "") -> list[BaseMessage]:
    return _call(
        "run_command", {"command": command}, f"{output}\n[exit status {status}]", text=text
    )


def _write(path: str, content: str = "x = 1\n", text: str = "") -> list[BaseMessage]:
    return _call("write_file", {"path": path, "content": content}, f"Wrote {path}", text=text)


def _edit(path: str, text: str = "") -> list[BaseMessage]:
    return _call(
        "edit_file", {"path": path, "old": "x = 1", "new": "x = 2"}, f"Edited {path}", text=text
    )


TODOS = [
    "Sketch the invoice schema",
    "Parse the CSV rows",
    "Handle quoted fields",
    "Write tests for the importer",
    "Document the CLI",
]
GOAL = "Build a CSV importer for invoices. Never use pandas; keep it in the invoices package."
INTENTION = "Next I'll make parse_row keep commas inside quoted fields."


def todos_cut(total: int = 5, cut_in: int = 3) -> Session:
    """Work through ``total`` todos, cut half-way through todo ``cut_in``: its file written and
    edited, its check failing, the assistant saying what it does next."""
    items = TODOS[:total]
    messages: list[BaseMessage] = [HumanMessage(GOAL), *_todos(items, 0, 0)]
    for n in range(cut_in - 1):
        path = f"invoices/step_{n + 1}.py"
        messages += [
            *_write(path),
            *_run(f"python -m pytest tests/test_step_{n + 1}.py -q", 0, "3 passed"),
            *_todos(items, n + 1, n + 1),
        ]
    current = "invoices/quoted.py"
    messages += [
        *_write(current, text="Starting on the quoted fields."),
        *_run(
            "python -m pytest tests/test_quoted.py -q",
            1,
            "FAILED tests/test_quoted.py::test_comma - AssertionError: 3 fields, expected 2",
        ),
        *_edit(current, text=f"The test fails because commas split quoted fields. {INTENTION}"),
    ]
    return Session(
        name=f"todos {cut_in}/{total}",
        messages=messages,
        probes={
            "in_progress": [items[cut_in - 1]],
            "next_step": [INTENTION],
            "goal": [GOAL],
            "files": [f"step_{n + 1}.py" for n in range(cut_in - 1)] + ["quoted.py"],
            "todos": items[cut_in - 1 :],
        },
        sections={"in_progress": "In Progress", "next_step": "Next Step"},
    )


QUEUED = ["Also export the totals as a CSV file.", "Use ISO dates in every output."]


def queued_while_working() -> Session:
    """A request, then two messages the user typed while the agent worked (delivered at its
    next steps), and a cut before the agent answered them."""
    messages: list[BaseMessage] = [
        HumanMessage("Add a monthly report command to the invoices CLI."),
        *_write("invoices/report.py", text="I'll add the report module first."),
        HumanMessage(QUEUED[0], additional_kwargs={"queued": True}),
        *_edit("invoices/cli.py"),
        HumanMessage(QUEUED[1], additional_kwargs={"queued": True}),
        *_run("python -m invoices report --month 2026-11", 0, "report written"),
    ]
    return Session(
        name="queued x2",
        messages=messages,
        probes={"queued": list(QUEUED), "files": ["report.py", "cli.py"]},
        sections={"queued": "User Messages"},
    )


CAUSE = "The test fails because the parser drops the last row when the file has no newline."


def failure_fixed() -> Session:
    """A check that failed, the assistant's diagnosis, an edit, and the check passing."""
    messages: list[BaseMessage] = [
        HumanMessage("Make the importer accept files without a trailing newline."),
        *_run(
            "python -m pytest tests/test_rows.py -q",
            1,
            "E   AssertionError: expected 3 rows, got 2\n1 failed",
        ),
        *_call("read_file", {"path": "invoices/rows.py"}, "def rows(text): ...", text=CAUSE),
        *_edit("invoices/rows.py"),
        *_run("python -m pytest tests/test_rows.py -q", 0, "3 passed"),
        AIMessage("Files without a trailing newline import every row now."),
    ]
    return Session(
        name="failure fixed",
        messages=messages,
        probes={
            "lessons": ["tests/test_rows.py", "invoices/rows.py", CAUSE],
            "stale_failures": ["python -m pytest tests/test_rows.py -q"],
        },
        sections={"lessons": "Errors and Fixes"},
    )


def chain(resets: int = 30) -> list[Session]:
    """``resets + 1`` sessions of one thread, each with a request, files and a check; some
    with a failure fixed in the same session."""
    sessions = []
    for n in range(1, resets + 2):
        request = (
            GOAL
            if n == 1
            else f"Session {n} request: add the field_{n} column to the invoice export."
        )
        messages: list[BaseMessage] = [
            HumanMessage(request),
            *_write(f"invoices/fields/field_{n}.py"),
            *_edit(f"invoices/export_{n % 4}.py"),
        ]
        if n % 3 == 0:
            messages += [
                *_run(
                    f"python -m pytest tests/test_field_{n}.py -q", 1, f"E   KeyError: 'field_{n}'"
                ),
                *_edit(
                    f"invoices/schema_{n}.py",
                    text=f"It fails because field_{n} is missing from the schema.",
                ),
            ]
        messages += [
            *_run(f"python -m pytest tests/test_field_{n}.py -q", 0, "ok"),
            AIMessage(f"Added field_{n}."),
        ]
        files = [f"field_{n}.py", f"export_{n % 4}.py"] + ([f"schema_{n}.py"] if n % 3 == 0 else [])
        sessions.append(
            Session(
                name=f"chain {n}",
                messages=messages,
                probes={"requests": [request[:60]], "files": files},
            )
        )
    return sessions


# --- agents that track their work without the todo tool -------------------------------------

TRACKER_GOAL = "Work through the open beads issues of the exporter, one at a time; commit each."
TRACKER_NEXT = "Next I'll convert the dates with isoformat() before dumping them."
TRACKER_CAUSE = "The test fails because the dates are written as date objects."


def tracker_shell() -> Session:
    """Issues tracked with beads through the shell: one closed by its commit and ``bd close``,
    the next under way with a failing check, the third open."""
    listing = (
        "EXP-1 [P1] [task] open - Add the CSV writer\n"
        "EXP-2 [P1] [task] open - Add the JSON writer\n"
        "EXP-3 [P2] [task] open - Document the export flags"
    )
    messages: list[BaseMessage] = [
        HumanMessage(TRACKER_GOAL),
        *_run("bd list --status open", 0, listing),
        *_run("bd update EXP-1 --status in_progress", 0, "Updated EXP-1"),
        *_write("exporter/csv_writer.py"),
        *_run("python -m pytest tests/test_csv_writer.py -q", 0, "4 passed"),
        *_run(
            'git commit -am "feat: CSV writer (EXP-1)"',
            0,
            "[main 1a2b3c4] feat: CSV writer (EXP-1)",
        ),
        *_run("bd close EXP-1 --reason done", 0, "Closed EXP-1"),
        *_run(
            "bd update EXP-2 --status in_progress",
            0,
            "Updated EXP-2",
            text="EXP-1 is closed. Starting EXP-2.",
        ),
        *_write("exporter/json_writer.py"),
        *_run(
            "python -m pytest tests/test_json_writer.py -q",
            1,
            "E   AssertionError: '2026-12-01' != datetime.date(2026, 12, 1)\n1 failed",
        ),
        *_call(
            "read_file",
            {"path": "exporter/json_writer.py"},
            "def dump(rows): ...",
            text=f"{TRACKER_CAUSE} {TRACKER_NEXT}",
        ),
    ]
    return Session(
        name="tracker via shell",
        messages=messages,
        probes={
            "in_progress": ["EXP-2"],
            "next_step": ["convert the dates with isoformat()"],
            "remaining": ["EXP-3"],
            "at_the_cut": [TRACKER_CAUSE],
            "files": ["csv_writer.py", "json_writer.py"],
        },
    )


PLAN = """# Settings migration

## Task 1: Model the settings
- [ ] Write settings/model.py
- [ ] Test the model

## Task 2: Load from the environment
- [ ] Write settings/env.py
- [ ] Test env loading

## Task 3: Remove the old loader
- [ ] Delete settings/legacy.py
- [ ] Update the imports
"""
PLAN_NEXT = "I'll give APP_PORT a default of 8000 in the env loader."
PLAN_CAUSE = "The env test fails because APP_PORT has no default."


def _tick(path: str, old: str, new: str, text: str = "") -> list[BaseMessage]:
    return _call("edit_file", {"path": path, "old": old, "new": new}, f"Edited {path}", text=text)


def plan_file() -> Session:
    """A plan file with checkboxes the agent writes and ticks: task 1 ticked, task 2 half
    ticked with its check failing, task 3 open."""
    messages: list[BaseMessage] = [
        HumanMessage("Move the settings to pydantic; keep a plan with checkboxes in docs/plan.md."),
        *_write("docs/plan.md", PLAN, text="I'll keep the plan in docs/plan.md."),
        *_write("settings/model.py"),
        *_run("python -m pytest tests/test_model.py -q", 0, "5 passed"),
        *_tick(
            "docs/plan.md",
            "- [ ] Write settings/model.py\n- [ ] Test the model",
            "- [x] Write settings/model.py\n- [x] Test the model",
        ),
        *_write("settings/env.py"),
        *_tick("docs/plan.md", "- [ ] Write settings/env.py", "- [x] Write settings/env.py"),
        *_run("python -m pytest tests/test_env.py -q", 1, "E   KeyError: 'APP_PORT'\n1 failed"),
        *_call(
            "read_file",
            {"path": "settings/env.py"},
            "def load(): ...",
            text=f"{PLAN_CAUSE} {PLAN_NEXT}",
        ),
    ]
    return Session(
        name="plan file",
        messages=messages,
        probes={
            "in_progress": ["Task 2: Load from the environment"],
            "next_step": ["give APP_PORT a default of 8000"],
            "remaining": ["Task 3: Remove the old loader"],
            "at_the_cut": [PLAN_CAUSE],
            "files": ["model.py", "env.py", "plan.md"],
        },
    )


PLAN_STEPS = [
    "`invoices/rows.py`: rename the definition",
    "`invoices/cli.py`: update the caller",
    "`docs/usage.md`: rename it in the examples",
    "Run the tests",
]


def numbered_plan() -> Session:
    """The agent's own numbered plan in its words; two steps done, the cut before the third."""
    plan = "I'll update:\n" + "\n".join(f"{n}. {step}" for n, step in enumerate(PLAN_STEPS, 1))
    messages: list[BaseMessage] = [
        HumanMessage("Rename the fetch_rows helper to read_rows everywhere; keep the tests green."),
        *_call("read_file", {"path": "invoices/rows.py"}, "def fetch_rows(): ...", text=plan),
        *_edit("invoices/rows.py"),
        *_edit("invoices/cli.py", text="The definition is renamed; now the caller."),
    ]
    return Session(
        name="numbered plan",
        messages=messages,
        probes={
            "in_progress": ["docs/usage.md"],
            "next_step": ["docs/usage.md"],
            "remaining": ["Run the tests"],
            "at_the_cut": ["now the caller"],
            "files": ["rows.py", "cli.py"],
        },
    )


def fixed_differently() -> Session:
    """A push that failed, then passed worded differently (with ``--set-upstream``)."""
    messages: list[BaseMessage] = [
        HumanMessage("Push the exporter branch."),
        *_run(
            "git push",
            128,
            "fatal: The current branch exporter has no upstream branch.",
        ),
        *_run(
            "git push --set-upstream origin exporter",
            0,
            "branch 'exporter' set up to track 'origin/exporter'.",
            text="It fails because the branch has no upstream yet.",
        ),
        AIMessage("The exporter branch is pushed."),
    ]
    return Session(
        name="fixed differently",
        messages=messages,
        probes={"stale_failures": ["git push"]},
    )


def fixed_next_session() -> list[Session]:
    """A check that failed when the session was cut, and passed in the next session."""
    command = "python -m pytest tests/test_totals.py -q"
    first: list[BaseMessage] = [
        HumanMessage("Make the totals row add up for credit notes."),
        *_edit("invoices/totals.py"),
        *_run(command, 1, "E   AssertionError: -10 != 10\n1 failed"),
    ]
    second: list[BaseMessage] = [
        *_edit("invoices/totals.py", text="The sign of credit notes was dropped."),
        *_run(command, 0, "6 passed"),
        AIMessage("Credit notes add up in the totals row now."),
    ]
    return [
        Session(name="fixed next session 1", messages=first),
        Session(
            name="fixed next session 2",
            messages=second,
            probes={"stale_failures": ["python -m pytest tests/test_totals.py -q"]},
        ),
    ]


TASKS = [
    "Add the invoice number column",
    "Add the due date column",
    "Add the currency column",
    "Add the totals footer",
    "Add the tax breakdown",
    "Add the PDF export",
]


def _task_id(task: int) -> str:
    return f"INV-{task}"


def task_chain(resets: int = 20) -> list[Session]:
    """``resets + 1`` sessions working through six beads issues with no todo tool: a task
    spans several sessions; the session that finishes one commits it, closes it and starts
    the next, writing its tests. Each session's probes: the task under way, the next step."""
    sessions = []
    count = resets + 1
    for n in range(1, count + 1):
        task = min(len(TASKS), (n - 1) * len(TASKS) // count + 1)
        ends = n < count and min(len(TASKS), n * len(TASKS) // count + 1) != task
        ident, title = _task_id(task), TASKS[task - 1]
        path = f"invoices/columns/task_{task}.py"
        messages: list[BaseMessage] = []
        if n == 1:
            listing = "\n".join(
                f"{_task_id(k)} [P1] [task] open - {t}" for k, t in enumerate(TASKS, 1)
            )
            messages += [
                HumanMessage("Work through the INV issues in beads, in order; commit each one."),
                *_run("bd list --status open", 0, listing),
                *_run(f"bd update {ident} --status in_progress", 0, f"Updated {ident}"),
            ]
        messages += [
            *_edit(path, text=f"Working on {ident}: {title}."),
            *_run(f"python -m pytest tests/test_task_{task}.py -q", 0, "ok"),
        ]
        if ends:
            nxt, nxt_title = _task_id(task + 1), TASKS[task]
            messages += [
                *_run(
                    f'git commit -am "feat: {title.lower()} ({ident})"',
                    0,
                    f"[main {n:07x}] feat: {title.lower()} ({ident})",
                ),
                *_run(f"bd close {ident}", 0, f"Closed {ident}"),
                *_run(
                    f"bd update {nxt} --status in_progress",
                    0,
                    f"Updated {nxt}",
                    text=f"Continuing with task {task + 1}: {nxt_title}.",
                ),
                *_write(
                    f"tests/test_task_{task + 1}.py",
                    text=f"Next I'll write the failing test for {nxt}: {nxt_title.lower()}.",
                ),
            ]
            under_way, step = nxt, f"task_{task + 1}"
        else:
            step = f"task_{task}"
            messages += [
                *_call(
                    "read_file",
                    {"path": path},
                    "...",
                    text=f"Next I'll handle the empty rows in {path} for {ident}.",
                )
            ]
            under_way = ident
        sessions.append(
            Session(
                name=f"task chain {n}",
                messages=messages,
                probes={
                    "in_progress": [under_way],
                    "next_step": [step] if not ends else [under_way],
                    "done": [_task_id(k) for k in range(1, task + (1 if ends else 0))],
                },
            )
        )
    return sessions


def main() -> None:
    """Print each session's messages and probes (what the benchmarks and tests use)."""
    for session in [todos_cut(), queued_while_working(), failure_fixed(), *chain(2)]:
        print(f"{session.name}: {len(session.messages)} messages; probes {session.probes}")


if __name__ == "__main__":
    main()
