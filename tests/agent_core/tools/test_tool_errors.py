"""A bad tool call is an error result the model can act on, never the end of the turn."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from agent_core.context._build import build_context
from agent_core.errors import StoreError, ToolInputError
from agent_core.storage._memory_store import InMemoryStore
from agent_core.storage._workspace import MAX_PATH_CHARS, workspace_path
from agent_core.testing import ScriptedChatModel
from agent_core.tools._builtin import make_tools
from tests.agent_core.runtime_helpers import make_setup, of_type, run

LONG_PATH = "src/" + "a" * 596  # 600 characters


def call(name: str, args: dict, call_id: str) -> dict:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


BAD_CALLS = [
    call("run_command", {"command": 'echo "unbalanced'}, "quote"),
    call("write_file", {"path": LONG_PATH, "content": "x = 1\n"}, "long"),
    call("deploy_to_prod", {"now": True}, "unknown"),
    call("write_file", {"path": ["a.py"], "content": "x" * 5000}, "type"),
]
EXPECTED = {
    "quote": "error: run_command: unbalanced quote in the command: No closing quotation. "
    "Close the quote (or escape it) and run the command again",
    "long": "error: write_file: the path is 600 characters long; the workspace allows at most "
    "500. Use a shorter path",
    "unknown": "Error: deploy_to_prod is not a valid tool, try one of "
    "[read_file, write_file, edit_file, write_todos, run_command].",
    "type": "error: write_file: invalid arguments (path: Input should be a valid string). "
    "Expected: path (string), content (string)",
}


async def test_bad_tool_calls_are_stored_as_error_results_and_the_turn_goes_on() -> None:
    model = ScriptedChatModel([AIMessage(content="", tool_calls=BAD_CALLS), "All done."])
    setup = make_setup(model=model, window=200_000)
    events = await run(setup, "set things up")
    assert not of_type(events, "error")
    rows = setup.store.messages(setup.store.sessions("t1")[0].id)
    assert [r.role for r in rows] == ["user", "assistant"] + ["tool"] * 4 + ["assistant"]
    assert [c["id"] for c in rows[1].tool_calls] == list(EXPECTED)
    results = {r.tool_call_id: r for r in rows if r.role == "tool"}
    assert {key: r.content for key, r in results.items()} == EXPECTED
    assert all(r.meta == {"status": "error"} for r in results.values())
    assert rows[-1].content == "All done."
    assert setup.store.list_files("t1") == []
    # The model was shown every error, as failed tool results, before it answered.
    shown = [m for m in model.calls[1] if isinstance(m, ToolMessage)]
    assert [(m.content, m.status) for m in shown] == [(text, "error") for text in EXPECTED.values()]


async def test_a_failed_call_stays_failed_when_the_session_is_rebuilt() -> None:
    model = ScriptedChatModel([AIMessage(content="", tool_calls=BAD_CALLS[:1]), "ok"])
    setup = make_setup(model=model, window=200_000)
    await run(setup, "go")
    [result] = [
        m
        for m in build_context(setup.store, setup.store.current_session("t1"))
        if isinstance(m, ToolMessage)
    ]
    assert result.status == "error"


async def test_a_store_that_refuses_a_write_is_an_error_result_too() -> None:
    class FullStore(InMemoryStore):
        def write_file(self, thread_id: str, path: str, content: str) -> None:
            raise StoreError("The database refused the change; nothing was stored (disk full).")

    store = FullStore()
    model = ScriptedChatModel(
        [
            AIMessage(
                content="", tool_calls=[call("write_file", {"path": "a.py", "content": ""}, "c")]
            ),
            "Could not write.",
        ]
    )
    setup = make_setup(store, model=model, window=200_000)
    events = await run(setup, "write a.py")
    assert not of_type(events, "error")
    [result] = [r for r in store.messages(store.sessions("t1")[0].id) if r.role == "tool"]
    assert result.content == (
        "error: write_file: the workspace could not store this: The database "
        "refused the change; nothing was stored (disk full)."
    )


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        (
            "read_file",
            {"path": "missing.py"},
            "missing.py does not exist; run_command 'ls' lists the workspace's files",
        ),
        (
            "edit_file",
            {"path": "a.py", "old_string": "", "new_string": "y"},
            "old_string is empty; give the exact text to replace (write_file creates a file)",
        ),
        (
            "edit_file",
            {"path": "a.py", "old_string": "nowhere", "new_string": "y"},
            "the text to replace was not found in a.py; read_file shows its content",
        ),
        (
            "write_file",
            {"path": "..\\..\\evil.txt", "content": "x"},
            "'..\\\\..\\\\evil.txt' contains a backslash; separate folders with '/', e.g. src/app.py",
        ),
        (
            "write_file",
            {"path": "/etc/passwd", "content": ""},
            "'/etc/passwd' is an absolute path; use a path relative to the workspace root, e.g. src/app.py",
        ),
        (
            "write_file",
            {"path": "src/../../up.py", "content": ""},
            "'src/../../up.py' leaves the workspace ('..'); use a path inside it",
        ),
        (
            "run_command",
            {"command": "cat ../secret"},
            "'../secret' leaves the workspace ('..'); use a path inside it",
        ),
    ],
)
def test_each_tool_refuses_arguments_it_cannot_use(name, args, message) -> None:
    store = InMemoryStore()
    store.write_file("t1", "a.py", "x = 1\n")
    tool = {t.name: t for t in make_tools(store, "t1")}[name]
    with pytest.raises(ToolInputError) as raised:
        tool.invoke(args)
    assert str(raised.value) == message
    assert store.list_files("t1") == ["a.py"]


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("./src/app.py", "src/app.py"),
        (".env", ".env"),
        ("src//./app.py", "src/app.py"),
        ("a" * MAX_PATH_CHARS, "a" * MAX_PATH_CHARS),
    ],
)
def test_workspace_paths_are_stored_in_one_form(given, stored) -> None:
    assert workspace_path(given) == stored
