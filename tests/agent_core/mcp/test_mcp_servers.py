"""MCP servers' tools in a turn, against a real MCP server started over stdio."""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from agent_core.runtime._runner import ThreadRunner
from agent_core.storage._memory_store import InMemoryStore
from agent_core.testing import FunctionChatModel
from agent_core.tools import _mcp_stderr as mcp_stderr
from agent_core.tools._mcp import McpServer, McpToolbox, _problem
from agent_core.tools._mcp_stderr import REDACT_ENV
from tests.agent_core.runtime_helpers import collect, make_setup, of_type

NOTES = McpServer(
    name="notes",
    transport="stdio",
    command=sys.executable,
    args=(str(Path(__file__).with_name("notes_server.py")),),
    secrets={"NOTES_SIGNATURE": "s3cret-sig"},
)


def _calls_then_reports(tool: str, args: dict) -> FunctionChatModel:
    """Calls ``tool`` once, then answers with what the tool returned."""

    def answer(messages: list[BaseMessage], **_: object) -> AIMessage:
        results = [m for m in messages if isinstance(m, ToolMessage)]
        if results:
            return AIMessage(content=f"The tool said: {results[-1].text}")
        return AIMessage(content="", tool_calls=[{"name": tool, "args": args, "id": "call-1"}])

    return FunctionChatModel(fn=answer, calls=[])


def _setup(servers: list[McpServer], model: FunctionChatModel, toolbox: McpToolbox | None = None):
    box = toolbox or McpToolbox(load_timeout=20)
    setup = make_setup(InMemoryStore(), model=model, window=100_000)
    setup.tool_loader = lambda: box.load(servers)
    return setup


def _rows(setup, role: str):
    session = setup.store.sessions(setup.thread_id)[-1]
    return [r for r in setup.store.messages(session.id) if r.role == role]


async def test_the_agent_calls_a_tool_of_a_real_mcp_server() -> None:
    model = _calls_then_reports("notes_shout", {"text": "hello"})
    setup = _setup([NOTES], model)

    events = await collect(ThreadRunner().submit(setup, "shout hello"))

    assert not of_type(events, "warning") and not of_type(events, "error")
    (tool_row,) = _rows(setup, "tool")
    assert tool_row.name == "notes_shout"
    # The server ran (upper-cased) with the secret it was given in its environment.
    assert tool_row.content == "HELLO (signed s3cret-sig)"
    assert _rows(setup, "assistant")[-1].content == "The tool said: HELLO (signed s3cret-sig)"


async def test_a_tool_error_of_the_server_is_an_error_row_not_a_failed_turn() -> None:
    setup = _setup([NOTES], _calls_then_reports("notes_fail", {"reason": "disk full"}))

    events = await collect(ThreadRunner().submit(setup, "try it"))

    assert not of_type(events, "error")
    (tool_row,) = _rows(setup, "tool")
    assert "disk full" in tool_row.content
    assert tool_row.meta.get("status") == "error"


@pytest.mark.parametrize(
    "command, args, why",
    [
        (sys.executable, ("-c", "raise SystemExit(3)"), "could not be used"),
        ("baton-no-such-mcp-server", (), "could not be used"),
    ],
)
async def test_a_server_that_fails_to_start_is_a_stored_problem_and_the_turn_answers(
    command: str, args: tuple[str, ...], why: str
) -> None:
    broken = McpServer(
        name="broken",
        transport="stdio",
        command=command,
        args=args,
        secrets={"TOKEN": "hunter2-secret"},
    )
    offered: set[str] = set()

    def answer(messages: list[BaseMessage], **kwargs: object) -> str:
        offered.update(tool["function"]["name"] for tool in kwargs.get("tools") or [])
        return "answered anyway"

    model = FunctionChatModel(fn=answer, calls=[])
    setup = _setup([broken, NOTES], model)

    events = await collect(ThreadRunner().submit(setup, "hi"))

    # A problem row in the chat, stored after the message it answers (a reload shows it);
    # never a toast only, never an error that ends the turn.
    (problem,) = _rows(setup, "event")
    assert problem.meta == {"event": "tool_problem"}
    assert problem.content.startswith(f"MCP server 'broken' ({command}")
    assert why in problem.content
    roles = [r.role for r in setup.store.messages(problem.session_id)]
    assert roles[:3] == ["user", "event", "assistant"]
    assert [
        e["data"]["id"] for e in of_type(events, "message") if e["data"]["role"] == "event"
    ] == [problem.id]
    assert "hunter2-secret" not in str(events)
    assert not of_type(events, "error") and not of_type(events, "warning")
    assert _rows(setup, "assistant")[-1].content == "answered anyway"
    # The working server's tools still joined the turn.
    assert "notes_shout" in offered and not any(name.startswith("broken") for name in offered)


async def test_a_server_that_does_not_answer_in_time_is_left_out() -> None:
    silent = McpServer(
        name="silent",
        transport="stdio",
        command=sys.executable,
        args=("-c", "import time; time.sleep(60)"),
    )

    load = await McpToolbox(load_timeout=1).load([silent])

    assert load.tools == []
    assert load.problems == [
        f"MCP server 'silent' ({sys.executable} -c import time; time.sleep(60)) could not be "
        "used: it did not answer within 1 s. Its tools are left out of this turn; an admin can "
        "fix it on /admin."
    ]


async def test_tools_are_kept_for_the_cache_time_and_reloaded_after_it_or_on_a_change() -> None:
    now = [0.0]
    box = McpToolbox(cache_seconds=300, clock=lambda: now[0])

    first = await box.load([NOTES])
    now[0] = 299
    assert (await box.load([NOTES])).tools == first.tools  # the same objects: no new start
    changed = NOTES.model_copy(update={"secrets": {"NOTES_SIGNATURE": "other"}})
    assert (await box.load([changed])).tools[0] is not first.tools[0]
    now[0] = 301
    assert (await box.load([NOTES])).tools[0] is not first.tools[0]


async def test_a_flood_of_output_reaches_the_model_as_its_head_and_tail() -> None:
    setup = _setup([NOTES], _calls_then_reports("notes_flood", {"chars": 100_000}))

    await collect(ThreadRunner().submit(setup, "flood"))

    (tool_row,) = _rows(setup, "tool")
    assert len(tool_row.content) < 16_100
    assert tool_row.content.startswith("axxx") and tool_row.content.endswith("xxxz")
    assert "[... 84000 characters of output cut ...]" in tool_row.content


async def test_secrets_of_a_failing_server_never_reach_the_chat_or_the_logs(
    log_redaction: None, caplog: pytest.LogCaptureFixture
) -> None:
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there: the connection is refused
    url_token, header = "url-t0ken-9f2c", "Bearer hdr-s3cret-77a1"
    broken = McpServer(
        name="docs",
        transport="http",
        url=f"http://127.0.0.1:{port}/mcp?token={url_token}",
        secrets={"Authorization": header},
    )
    caplog.set_level(logging.DEBUG)
    setup = _setup([broken], FunctionChatModel(fn=lambda *_, **__: "fine", calls=[]))

    events = await collect(ThreadRunner().submit(setup, "hi"))
    # Whatever a library logs with the secret in it (here, as an example, this test) is
    # redacted once the server has been loaded.
    logging.getLogger("mcp.client").warning("sending %s to %s", header, broken.url)

    (problem,) = _rows(setup, "event")
    assert problem.content.startswith(f"MCP server 'docs' (http://127.0.0.1:{port}/mcp?token=")
    for secret in (url_token, "hdr-s3cret-77a1"):
        assert secret not in problem.content and secret not in str(events)
        assert secret not in caplog.text
    assert "sending [redacted] to" in caplog.text


def test_a_stdio_server_runs_behind_the_stderr_redactor() -> None:
    connection = NOTES.connection(call_timeout=5)
    assert Path(connection["args"][0]).name == "_mcp_stderr.py"
    assert connection["args"][1:] == [NOTES.command, *NOTES.args]
    assert json.loads(connection["env"][REDACT_ENV]) == ["NOTES_SIGNATURE"]
    assert connection["env"]["NOTES_SIGNATURE"] == "s3cret-sig"


def test_the_redactor_passes_the_stream_and_redacts_the_servers_stderr() -> None:
    # A careless server: its secret in a log line on stderr, which is the app's log.
    server = (
        "import os, sys; print('starting with', os.environ['NOTES_TOKEN'], file=sys.stderr);"
        "print(sys.stdin.readline().upper(), end=''); sys.exit(3)"
    )
    done = subprocess.run(
        [sys.executable, str(Path(mcp_stderr.__file__)), sys.executable, "-c", server],
        input="ping\n",
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "NOTES_TOKEN": "tok-s3cret-42", REDACT_ENV: '["NOTES_TOKEN"]'},
    )
    assert done.stdout == "PING\n"  # the MCP stream is the server's own stdin and stdout
    assert done.stderr == "starting with [redacted]\n"
    assert done.returncode == 3


def test_a_problem_line_redacts_a_secret_the_error_quotes() -> None:
    server = McpServer(
        name="notes",
        transport="stdio",
        command="notes-server",
        secrets={"NOTES_TOKEN": "quoted-s3cret"},
    )

    line = _problem(server, RuntimeError("bad token quoted-s3cret in env"), 20)

    assert "quoted-s3cret" not in line and "bad token [redacted] in env" in line


ARGV_TOKEN = "ghp_argvS3cretToken1234567890"


async def test_a_token_on_the_command_line_never_reaches_the_chat_or_the_logs(
    log_redaction: None, caplog: pytest.LogCaptureFixture
) -> None:
    # A server that fails at start and says why with its arguments in the message.
    failing = McpServer(
        name="gh",
        transport="stdio",
        command=sys.executable,
        args=(
            "-c",
            "import sys; sys.exit('refused: ' + ' '.join(sys.argv[1:]))",
            "--token",
            ARGV_TOKEN,
        ),
    )
    caplog.set_level(logging.DEBUG)
    setup = _setup([failing], FunctionChatModel(fn=lambda *_, **__: "fine", calls=[]))

    events = await collect(ThreadRunner().submit(setup, "hi"))
    logging.getLogger("mcp.client").warning("started %s", " ".join(failing.args))

    (problem,) = _rows(setup, "event")
    assert problem.content.startswith(f"MCP server 'gh' ({sys.executable} -c ")
    assert "--token [redacted])" in problem.content
    assert ARGV_TOKEN not in problem.content and ARGV_TOKEN not in str(events)
    assert ARGV_TOKEN not in caplog.text and "--token [redacted]" in caplog.text


def test_the_stderr_redactor_hides_a_token_given_as_an_argument() -> None:
    server = McpServer(
        name="gh",
        transport="stdio",
        command=sys.executable,
        args=(
            "-c",
            "import sys; print('using', sys.argv[2], file=sys.stderr)",
            "--token",
            ARGV_TOKEN,
        ),
    )
    connection = server.connection(call_timeout=5)
    done = subprocess.run(
        [connection["command"], *connection["args"]],
        input="",
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, **connection["env"]},
    )
    assert done.stderr == "using [redacted]\n"
