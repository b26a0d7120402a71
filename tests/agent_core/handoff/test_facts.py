"""extract_facts: what the tools prove, across agent dialects."""

from __future__ import annotations

import json

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from agent_core.handoff._facts import extract_facts
from tests.shared_data import eval_path


def call(name: str, args: dict, call_id: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": call_id}])


def result(content: str, call_id: str, status: str = "success") -> ToolMessage:
    return ToolMessage(content, tool_call_id=call_id, status=status)


def test_baton_tools_files_commands_and_todos() -> None:
    messages = [
        HumanMessage("add a greeting"),
        call("read_file", {"path": "/repo/README.md"}, "1"),
        result("# readme", "1"),
        call("write_file", {"path": "/repo/src/app.py", "content": "x"}, "2"),
        result("ok", "2"),
        call("edit_file", {"path": "src/util.py", "old_string": "a", "new_string": "b"}, "3"),
        result("ok", "3"),
        call("run_command", {"command": "pytest -q"}, "4"),
        result("===== 3 passed in 0.1s =====\n[exit status 0]", "4"),
        call("run_command", {"command": "git commit -am 'greet'"}, "5"),
        result("[main 1a2b3c4] greet\n 1 file changed\n[exit status 0]", "5"),
        call(
            "write_todos",
            {
                "todos": [
                    {"content": "greet", "status": "completed", "id": "t1"},
                    {"content": "docs", "status": "pending", "parent_id": "t1"},
                ]
            },
            "6",
        ),
        result("ok", "6"),
    ]
    facts = extract_facts(messages)
    assert facts.modified_paths == ["src/app.py", "src/util.py"]
    assert all(f.verified for f in facts.files_modified)
    assert facts.files_modified[0].evidence == "write_file"
    assert facts.files_read == ["README.md"]
    assert [(c.command, c.exit_status) for c in facts.commands] == [
        ("pytest -q", 0),
        ("git commit -am 'greet'", 0),
    ]
    assert [(t.outcome, t.summary) for t in facts.test_runs] == [("passed", "3 passed in 0.1s")]
    assert [(c.sha, c.message) for c in facts.commits] == [("1a2b3c4", "greet")]
    assert [t.content for t in facts.open_todos] == ["docs"]
    assert facts.todos[1].parent_id == "t1"


def test_failed_edits_and_failed_tests_are_reported_as_such() -> None:
    messages = [
        call("edit_file", {"file_path": "a.py", "old_string": "x", "new_string": "y"}, "1"),
        result("Error: String to replace not found in file", "1", status="error"),
        call("edit_file", {"file_path": "b.py", "old_string": "x", "new_string": "y"}, "2"),
        result("Successfully replaced", "2"),
        call("run_command", {"command": "python -m pytest"}, "3"),
        result("1 failed, 2 passed\n[exit status 1]", "3"),
    ]
    facts = extract_facts(messages)
    assert facts.modified_paths == ["b.py"]  # deepagents' file_path argument
    assert facts.test_runs[0].outcome == "failed"
    assert facts.commands[0].exit_status == 1


def test_claude_code_tool_use_blocks() -> None:
    messages = [
        AIMessage(
            [
                {"type": "text", "text": "Editing."},
                {
                    "type": "tool_use",
                    "id": "a",
                    "name": "Edit",
                    "input": {
                        "file_path": "/repo/pkg/mod.py",
                        "old_string": "1",
                        "new_string": "2",
                    },
                },
                {
                    "type": "tool_use",
                    "id": "b",
                    "name": "MultiEdit",
                    "input": {"file_path": "/repo/pkg/other.py", "edits": []},
                },
                {"type": "tool_use", "id": "c", "name": "Bash", "input": {"command": "npm test"}},
                {
                    "type": "tool_use",
                    "id": "d",
                    "name": "TodoWrite",
                    "input": {
                        "todos": [
                            {"content": "ship", "status": "in_progress", "activeForm": "Shipping"}
                        ]
                    },
                },
            ]
        ),
        HumanMessage(
            [
                {"type": "tool_result", "tool_use_id": "a", "content": "done"},
                {"type": "tool_result", "tool_use_id": "b", "content": "done"},
                {
                    "type": "tool_result",
                    "tool_use_id": "c",
                    "content": "1 failing",
                    "is_error": True,
                },
            ]
        ),
    ]
    facts = extract_facts(messages)
    assert facts.modified_paths == ["pkg/mod.py", "pkg/other.py"]
    assert facts.test_runs[0].outcome == "failed"
    assert facts.open_todos[0].status == "in_progress"


def test_swe_agent_function_calling_open_file_edits_and_scratch() -> None:
    footer = "\n(Open file: {f})\n(Current directory: /proj)\nbash-$"
    messages = [
        SystemMessage("SWE-agent"),
        HumanMessage("Fix the bug" + footer.format(f="n/a")),
        call("create", {"filename": "reproduce.py"}, "1"),
        result("[File: reproduce.py]" + footer.format(f="/proj/reproduce.py"), "1"),
        call("edit", {"search": "a", "replace": "b"}, "2"),
        result("ok" + footer.format(f="/proj/reproduce.py"), "2"),
        call("open", {"path": "/proj/src/lib.py"}, "3"),
        result("1: x" + footer.format(f="/proj/src/lib.py"), "3"),
        call("edit", {"start_line": 1, "end_line": 1, "replacement_text": "y"}, "4"),
        result("ok" + footer.format(f="/proj/src/lib.py"), "4"),
        call("bash", {"command": "rm reproduce.py"}, "5"),
        result(footer.format(f="/proj/src/lib.py"), "5"),
    ]
    facts = extract_facts(messages)
    assert facts.modified_paths == ["src/lib.py"]
    assert facts.scratch_files == ["reproduce.py"]


def test_swe_agent_text_actions_and_failed_edit() -> None:
    footer = "\n(Open file: /proj/m.py)\n(Current directory: /proj)\nbash-$"
    messages = [
        HumanMessage("task\n(Open file: n/a)\n(Current directory: /proj)\nbash-$"),
        AIMessage("Open it.\n```\nopen m.py\n```"),
        HumanMessage("1: x" + footer),
        AIMessage("Fix.\n<command>\nedit 1:1\ny\nend_of_edit\n</command>"),
        HumanMessage("Your proposed edit has introduced new syntax error(s)." + footer),
        AIMessage("Again.\n```\nedit 1:1\nz\nend_of_edit\n```"),
        HumanMessage("ok" + footer),
        AIMessage("Run.\n```\npython m.py\n```"),
        HumanMessage("z" + footer),
    ]
    facts = extract_facts(messages)
    assert facts.modified_paths == ["m.py"]
    assert [c.command for c in facts.commands] == ["python m.py"]


def test_swe_agent_submission_decides_the_net_change() -> None:
    messages = [
        call("str_replace_editor", {"command": "create", "path": "/testbed/new.py"}, "1"),
        result("File created", "1"),
        call("str_replace_editor", {"command": "str_replace", "path": "/testbed/x.py"}, "2"),
        result("edited", "2"),
    ]
    diff = "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n"
    facts = extract_facts(messages, metadata={"submission": diff})
    assert facts.modified_paths == ["x.py"]
    assert facts.scratch_files == ["new.py"]
    ctf = extract_facts(messages, metadata={"info": {"submission": "flag{x}"}})
    assert ctf.modified_paths == []


def test_aider_log_lines() -> None:
    messages = [
        HumanMessage("make it faster"),
        AIMessage(
            "aider/utils.py\n```python\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n"
            "> Applied edit to aider/utils.py\n> Commit fd43cd4 feat: Use the Spinner\n"
        ),
    ]
    facts = extract_facts(messages, metadata={"format": "aider"})
    assert facts.modified_paths == ["aider/utils.py"]
    assert facts.commits[0].sha == "fd43cd4"
    blocks_only = extract_facts(
        messages[:1] + [AIMessage(messages[1].text.split("> ")[0])], metadata={"format": "aider"}
    )
    assert blocks_only.modified_paths == ["aider/utils.py"]


def test_unconfirmed_calls_and_plain_chat_yield_nothing() -> None:
    messages = [
        HumanMessage("hi"),
        AIMessage("Applied edit to x.py"),
        call("write_file", {"path": "never.py"}, "9"),
    ]
    facts = extract_facts(messages)
    assert facts.files_modified == [] and facts.commands == []


def _swe_messages(path):
    data = json.loads(path.read_text())
    out = []
    for m in data["history"]:
        content = (
            m["content"]
            if isinstance(m["content"], str)
            else "\n".join(part.get("text", "") for part in m["content"])
        )
        if m["role"] == "assistant":
            calls = [
                {
                    "name": c["function"]["name"],
                    "id": c["id"],
                    "args": json.loads(c["function"]["arguments"]),
                }
                for c in m.get("tool_calls") or []
            ]
            out.append(AIMessage(content, tool_calls=calls))
        elif m["role"] == "tool":
            out.append(ToolMessage(content, tool_call_id=(m.get("tool_call_ids") or [""])[0]))
        else:
            out.append(HumanMessage(content))
    return out, data.get("info", {})


def test_swe_agent_trajectories_match_submitted_diffs() -> None:
    root = eval_path("swe-agent-trajectories")
    truth = json.loads((root / "derived" / "ground_truth.json").read_text())["trajectories"]
    checked = 0
    for rel, expected in truth.items():
        messages, info = _swe_messages(root / "files" / rel)
        if not info:
            continue
        facts = extract_facts(messages, metadata={"info": info})
        assert facts.modified_paths == expected["files_modified_from_submission"], rel
        if expected["files_modified_from_submission"]:  # tool calls alone agree too
            assert extract_facts(messages).modified_paths == facts.modified_paths, rel
        checked += 1
    assert checked >= 20


def test_aider_importer_events_count_only_inside_the_given_messages() -> None:
    events = [
        {"kind": "applied_edit", "message_index": 1, "path": "aider/io.py"},
        {"kind": "commit", "message_index": 1, "hash": "abc1234", "message": "fix: io"},
        {"kind": "applied_edit", "message_index": 3, "path": "aider/later.py"},
    ]
    messages = [HumanMessage("fix io"), AIMessage("done"), HumanMessage("more")]
    facts = extract_facts(messages[:2], metadata={"format": "aider", "events": events})
    assert facts.modified_paths == ["aider/io.py"]
    assert [c.sha for c in facts.commits] == ["abc1234"]
    assert extract_facts(
        messages, metadata={"format": "aider", "events": events}
    ).modified_paths == ["aider/io.py", "aider/later.py"]


def test_swe_agent_submit_tool_output_is_the_final_diff() -> None:
    messages = [
        call("create", {"filename": "/repo/scratch.py"}, "1"),
        result("ok", "1"),
        call("submit", {}, "2"),
        result("\ndiff --git a/src/x.py b/src/x.py\n--- a/src/x.py\n", "2"),
    ]
    facts = extract_facts(messages)
    assert facts.modified_paths == ["src/x.py"] and facts.scratch_files == ["scratch.py"]
