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

__all__ = ["Session", "todos_cut", "queued_while_working", "failure_fixed", "chain"]

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
        probes={"lessons": ["tests/test_rows.py", "invoices/rows.py", CAUSE]},
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


def main() -> None:
    """Print each session's messages and probes (what the benchmarks and tests use)."""
    for session in [todos_cut(), queued_while_working(), failure_fixed(), *chain(2)]:
        print(f"{session.name}: {len(session.messages)} messages; probes {session.probes}")


if __name__ == "__main__":
    main()
