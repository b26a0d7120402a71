"""run_command as each kind of model gets it: real and sandboxed, scripted, or not offered."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage

from agent_core.context._build import to_langchain
from agent_core.handoff._facts import extract_facts
from agent_core.runtime._runner import ThreadRunner
from agent_core.sandbox import Sandbox, SandboxLimits, SandboxResult, sandbox_unavailable_reason
from agent_core.storage._memory_store import InMemoryStore
from agent_core.testing import ScriptedChatModel
from agent_core.tools._builtin import command_mode, make_tools, shown_run
from tests.agent_core.runtime_helpers import collect, make_setup

TEST_FILE = (
    "import unittest\n\n"
    "class Answer(unittest.TestCase):\n"
    "    def test_answer(self):\n"
    "        self.assertEqual(6 * 7, 42)\n"
)


def call(name: str, args: dict, call_id: str) -> dict:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


@pytest.fixture
def sandboxed() -> None:
    reason = sandbox_unavailable_reason()
    if reason is not None:
        pytest.skip(f"no sandbox on this host: {reason}")


def sandboxed_setup(model: ScriptedChatModel, store: InMemoryStore | None = None):
    store = store or InMemoryStore()
    setup = make_setup(store, model=model, model_name="openai:gpt-4o", window=200_000)
    setup.tools = make_tools(
        store, "t1", commands="sandbox", sandbox=Sandbox(SandboxLimits(timeout=20))
    )
    return setup


def test_a_real_model_gets_the_sandbox_and_the_simulator_its_script(monkeypatch) -> None:
    monkeypatch.setattr(
        "agent_core.tools._builtin.sandbox_unavailable_reason", lambda enabled=True: None
    )
    assert command_mode(is_simulator=True) == "simulated"
    assert command_mode(is_simulator=False) == "sandbox"


def test_without_a_sandbox_a_real_model_is_not_offered_run_command(monkeypatch) -> None:
    monkeypatch.setattr(
        "agent_core.tools._builtin.sandbox_unavailable_reason", lambda enabled=True: "no bwrap"
    )
    assert command_mode(is_simulator=False) == "off"
    names = [tool.name for tool in make_tools(InMemoryStore(), "t1", commands="off")]
    assert names == ["read_file", "write_file", "edit_file", "write_todos"]


def test_the_model_reads_the_output_the_notes_and_the_exit_status() -> None:
    result = SandboxResult(exit_status=124, output="x" * 20_000 + "tail\n", timed_out=True)
    shown = shown_run(result)
    assert shown.endswith("tail\n[stopped: the command ran out of time]\n[exit status 124]")
    assert "[... 4005 characters of output cut ...]" in shown


@pytest.mark.usefixtures("sandboxed")
async def test_a_turn_writes_a_test_runs_it_for_real_and_keeps_the_files() -> None:
    model = ScriptedChatModel(
        [
            AIMessage(
                content="",
                tool_calls=[
                    call("write_file", {"path": "test_answer.py", "content": TEST_FILE}, "w")
                ],
            ),
            AIMessage(
                content="",
                tool_calls=[
                    call(
                        "run_command",
                        {"command": "python3 -m unittest -v 2>&1 | tee report.txt"},
                        "r",
                    )
                ],
            ),
            AIMessage(
                content="",
                tool_calls=[call("run_command", {"command": "rm report.txt; exit 3"}, "f")],
            ),
            "Tests pass.",
        ]
    )
    setup = sandboxed_setup(model)
    events = await collect(ThreadRunner().submit(setup, "add a test and run it"))
    assert not [e for e in events if e["type"] == "error"]
    rows = setup.store.messages(setup.store.sessions("t1")[0].id)
    results = {r.tool_call_id: r.content for r in rows if r.role == "tool"}
    assert "test_answer (test_answer.Answer.test_answer) ... ok" in results["r"]
    assert "Ran 1 test" in results["r"] and results["r"].endswith("OK\n[exit status 0]")
    assert results["f"] == "[exit status 3]"
    assert setup.store.list_files("t1") == ["test_answer.py"]  # report.txt made, then removed
    facts = extract_facts(to_langchain(rows))
    assert [(c.command.split()[0], c.exit_status) for c in facts.commands] == [
        ("python3", 0),
        ("rm", 3),
    ]


@pytest.mark.usefixtures("sandboxed")
async def test_a_file_written_by_a_command_lands_in_the_store() -> None:
    store = InMemoryStore()
    store.write_file("t1", "data.txt", "3\n4\n")
    tool = {t.name: t for t in make_tools(store, "t1", commands="sandbox")}["run_command"]
    shown = await tool.ainvoke({"command": "awk '{s+=$1} END {print s}' data.txt > sum.txt"})
    assert shown == "[exit status 0]"
    assert store.read_file("t1", "sum.txt") == "7\n"


def _processes_with(marker: str) -> int:
    count = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            count += marker in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
    return count


@pytest.mark.usefixtures("sandboxed")
async def test_stop_kills_the_running_command_and_its_children() -> None:
    marker = "876543.5"
    model = ScriptedChatModel(
        [
            AIMessage(
                content="",
                tool_calls=[
                    call(
                        "run_command",
                        {"command": f"sleep {marker} & sleep {marker}; echo late > late.txt"},
                        "s",
                    )
                ],
            ),
            "done",
        ]
    )
    setup = sandboxed_setup(model)
    cancel = asyncio.Event()
    turn = asyncio.create_task(collect(ThreadRunner().submit(setup, "wait", cancel=cancel)))
    for _ in range(200):
        if _processes_with(marker) >= 2:
            break
        await asyncio.sleep(0.05)
    assert _processes_with(marker) >= 2
    cancel.set()
    await asyncio.wait_for(turn, timeout=10)
    for _ in range(40):
        if not _processes_with(marker):
            break
        await asyncio.sleep(0.05)
    assert _processes_with(marker) == 0
    assert setup.store.list_files("t1") == []


@pytest.mark.usefixtures("sandboxed")
async def test_a_thread_stays_usable_after_commands_stopped_by_their_limits() -> None:
    hog = "python3 -c \"import time; x = b'a' * 200_000_000; time.sleep(30)\""
    hostile = {
        "bomb": "bomb() { bomb | bomb & }; bomb; sleep 10",
        "loop": "while :; do :; done",
        "flood": "head -c 100000000 /dev/zero | tr '\\0' a; echo never",
        "hog": f"{hog} & {hog} & wait",
        "fill": "head -c 20000000 /dev/zero > big.bin",
        "many": "i=0; while [ $i -lt 300 ]; do echo $i > n$i.txt; i=$((i+1)); done",
    }
    model = ScriptedChatModel(
        [
            *[
                AIMessage(content="", tool_calls=[call("run_command", {"command": command}, name)])
                for name, command in hostile.items()
            ],
            AIMessage(
                content="",
                tool_calls=[call("run_command", {"command": "echo alive > a.txt"}, "after")],
            ),
            "Survived.",
            AIMessage(
                content="", tool_calls=[call("run_command", {"command": "cat a.txt"}, "next")]
            ),
            "Still here.",
        ]
    )
    store = InMemoryStore()
    setup = make_setup(store, model=model, model_name="openai:gpt-4o", window=200_000)
    setup.tools = make_tools(
        store,
        "t1",
        commands="sandbox",
        sandbox=Sandbox(
            SandboxLimits(
                timeout=3,
                processes=32,
                output_bytes=64 * 1024,
                total_memory_bytes=300 * 1024**2,
                disk_bytes=8 * 1024**2,
                writeback_files=100,
            )
        ),
    )

    first = await collect(ThreadRunner().submit(setup, "try these"))
    second = await collect(ThreadRunner().submit(setup, "and now?"))

    assert not [e for e in first + second if e["type"] == "error"]
    rows = store.messages(store.sessions("t1")[0].id)
    results = {r.tool_call_id: r.content for r in rows if r.role == "tool"}
    assert "[exit status 0]" not in results["bomb"]
    assert "[stopped: the command ran out of time]" in results["loop"]
    assert "[stopped: the command printed more output than the limit]" in results["flood"]
    assert "never" not in results["flood"] and len(results["flood"]) < 20_000
    assert (
        "[stopped: the command's processes together used more than 300 MB of memory, the limit]"
    ) in results["hog"]
    assert "No space left on device" in results["fill"]
    assert "[the workspace is full: a command may write at most 8 MB;" in results["fill"]
    assert "[not kept: the command created or changed 300 files; at most 100" in results["many"]
    assert store.list_files("t1") == ["a.txt"]  # none of the 300, nor the partial big.bin
    assert results["after"] == "[exit status 0]" and results["next"] == "alive\n[exit status 0]"
    assert [r.content for r in rows if r.role == "assistant" and r.content] == [
        "Survived.",
        "Still here.",
    ]
