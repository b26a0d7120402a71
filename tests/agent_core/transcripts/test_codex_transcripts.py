"""Codex CLI rollouts: messages, calls and outputs, token counts, Codex's own compactions.

The rollouts here are constructed in this file, record by record, in the layout Codex writes
(an envelope per line; ``response_item`` payloads as the Responses API has them; ``token_count``
events; a ``compacted`` record). They are not recordings of a real session: the real rollouts
found in public repositories carry no licence that allows copying them here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from agent_core.errors import TranscriptFormatError
from agent_core.replay import ReplayReset, ReplaySummary
from agent_core.replay._run import replay
from agent_core.transcripts import load_transcript
from agent_core.transcripts._export import transcript_to_openai

T = "2026-03-01T10:00:00.000Z"


def _line(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": T, "type": kind, "payload": payload}


def _message(role: str, text: str) -> dict[str, Any]:
    block = "output_text" if role == "assistant" else "input_text"
    return _line(
        "response_item",
        {"type": "message", "role": role, "content": [{"type": block, "text": text}]},
    )


def _call(call_id: str, command: str) -> dict[str, Any]:
    return _line(
        "response_item",
        {
            "type": "function_call",
            "name": "shell",
            "arguments": json.dumps({"command": ["bash", "-lc", command]}),
            "call_id": call_id,
        },
    )


def _output(call_id: str, output: Any) -> dict[str, Any]:
    return _line(
        "response_item", {"type": "function_call_output", "call_id": call_id, "output": output}
    )


def _tokens(last_input: int, output: int = 50, window: int = 272000) -> dict[str, Any]:
    usage = {
        "input_tokens": last_input,
        "cached_input_tokens": last_input // 2,
        "output_tokens": output,
        "reasoning_output_tokens": 0,
        "total_tokens": last_input + output,
    }
    return _line(
        "event_msg",
        {
            "type": "token_count",
            "info": {
                "total_token_usage": usage,
                "last_token_usage": usage,
                "model_context_window": window,
            },
        },
    )


def rollout_records() -> list[dict[str, Any]]:
    """A two-turn session with a compaction between the turns."""
    return [
        _line(
            "session_meta",
            {
                "id": "sess-1",
                "cwd": "/home/dev/app",
                "originator": "codex_cli_rs",
                "cli_version": "0.60.1",
                "model_provider": "openai",
            },
        ),
        _message("developer", "<permissions instructions>sandboxed</permissions instructions>"),
        _message(
            "user", "<environment_context>\n  <cwd>/home/dev/app</cwd>\n</environment_context>"
        ),
        _line("turn_context", {"cwd": "/home/dev/app", "model": "gpt-5-codex"}),
        _message("user", "Fix the failing test in tests/test_parse.py"),
        _line("event_msg", {"type": "user_message", "message": "Fix the failing test"}),
        _line("event_msg", {"type": "token_count", "info": None, "rate_limits": {}}),
        _line(
            "response_item",
            {
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": "**Running the tests first**"}],
                "content": None,
                "encrypted_content": "opaque",
            },
        ),
        _message("assistant", "Running the test suite."),
        _call("call_1", "pytest -q"),
        _tokens(5200),
        _output("call_1", "Exit code: 1\nOutput:\nFAILED tests/test_parse.py::test_dates"),
        _tokens(5200),  # Codex repeats the last count after the outputs
        _line(
            "response_item",
            {
                "type": "custom_tool_call",
                "name": "apply_patch",
                "input": "*** Begin Patch\n*** Update File: app/parse.py\n",
                "call_id": "call_2",
                "status": "completed",
            },
        ),
        _tokens(6100),
        _line(
            "response_item",
            {
                "type": "custom_tool_call_output",
                "call_id": "call_2",
                "output": "Success. Updated: M app/parse.py",
            },
        ),
        _call("call_3", "pytest -q"),
        _tokens(6900),
        _output(
            "call_3", {"content": "Exit code: 2\nOutput:\nerror: no tests ran", "success": False}
        ),
        _message("assistant", "Fixed the date parsing; the test passes."),
        _tokens(7400),
        _line(
            "compacted",
            {
                "message": "Fixed date parsing in app/parse.py; tests pass.",
                "replacement_history": [],
            },
        ),
        _line("event_msg", {"type": "context_compacted"}),
        _message("user", "Now add a changelog entry"),
        _call("call_4", "cat CHANGELOG.md"),
        _tokens(1800),
        _output("call_4", [{"type": "input_text", "text": "# Changelog\n"}]),
        _message("assistant", "Added the entry."),
        _tokens(2100),
    ]


def _write(tmp_path: Path, records: list[dict[str, Any]], name: str = "rollout.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture
def rollout(tmp_path: Path) -> Path:
    return _write(tmp_path, rollout_records())


def test_auto_detection_tells_a_codex_rollout_from_a_claude_code_log(rollout: Path) -> None:
    assert load_transcript(rollout).format == "codex"


def test_messages_calls_and_outputs_keep_their_structure(rollout: Path) -> None:
    messages = load_transcript(rollout).messages
    kinds = [type(m).__name__ for m in messages]
    assert kinds == [
        "SystemMessage",
        "HumanMessage",
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
        "AIMessage",
        "ToolMessage",
        "AIMessage",
        "ToolMessage",
        "AIMessage",
        "HumanMessage",
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
        "AIMessage",
    ]
    first = messages[3]
    assert first.content == "Running the test suite."
    assert first.tool_calls[0]["args"] == {"command": ["bash", "-lc", "pytest -q"]}
    assert first.additional_kwargs["thinking"] == "**Running the tests first**"
    patch = messages[5].tool_calls[0]
    assert (patch["name"], patch["id"]) == ("apply_patch", "call_2")
    assert patch["args"]["input"].startswith("*** Begin Patch")
    failed = messages[8]
    assert isinstance(failed, ToolMessage) and failed.status == "error"
    assert failed.content.startswith("Exit code: 2")
    assert messages[13].content == "# Changelog\n"


def test_text_codex_wrote_itself_is_never_a_request(rollout: Path) -> None:
    messages = load_transcript(rollout).messages
    assert messages[1].additional_kwargs["not_user"] == "environment_context"
    assert "not_user" not in messages[2].additional_kwargs
    assert messages[10].additional_kwargs["not_user"] == "compact_summary"


def test_token_counts_are_charged_to_the_reply_of_each_call(rollout: Path) -> None:
    transcript = load_transcript(rollout)
    assert [(u.message_index, u.input_tokens, u.output_tokens) for u in transcript.usage] == [
        (3, 5200, 50),
        (5, 6100, 50),
        (7, 6900, 50),
        (9, 7400, 50),
        (12, 1800, 50),
        (14, 2100, 50),
    ]
    assert transcript.metadata["model_context_window"] == 272000
    assert transcript.metadata["models"] == ["gpt-5-codex"]
    assert transcript.metadata["session_id"] == "sess-1"


def test_codex_compaction_keeps_its_summary_and_the_tokens_around_it(rollout: Path) -> None:
    transcript = load_transcript(rollout)
    [compaction] = transcript.metadata["compactions"]
    assert compaction["summary"] == "Fixed date parsing in app/parse.py; tests pass."
    assert (compaction["tokens_before"], compaction["tokens_after"]) == (7400, 1800)
    assert compaction["message_index"] == 10
    assert transcript.messages[10].content == compaction["summary"]
    # Calls after the compaction were sent the summary onwards, not the whole history.
    after = [u for u in transcript.usage if u.message_index > 10]
    assert all(u.prompt_start == 10 for u in after)
    assert transcript.prompt(after[0])[0].content == compaction["summary"]


def test_round_trip_through_openai_chat_keeps_every_message(rollout: Path, tmp_path: Path) -> None:
    original = load_transcript(rollout)
    exported = tmp_path / "exported.json"
    exported.write_text(json.dumps(transcript_to_openai(original)), encoding="utf-8")
    back = load_transcript(exported)
    assert back.format == "openai" and back.metadata["source_format"] == "codex"

    def shape(m):
        return (
            type(m),
            m.content,
            [(c["name"], c["args"], c["id"]) for c in getattr(m, "tool_calls", [])],
            getattr(m, "tool_call_id", None),
        )

    assert [shape(m) for m in back.messages] == [shape(m) for m in original.messages]


def test_every_output_answers_a_call_made_before_it(rollout: Path) -> None:
    seen: set[str] = set()
    for message in load_transcript(rollout).messages:
        if isinstance(message, AIMessage):
            seen |= {c["id"] for c in message.tool_calls}
        elif isinstance(message, ToolMessage):
            assert message.tool_call_id in seen


def test_rollouts_from_before_the_envelope_load(tmp_path: Path) -> None:
    records = [
        {"id": "old-1", "timestamp": "2025-05-01T10:00:00Z", "instructions": None},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {
            "type": "function_call",
            "name": "shell",
            "arguments": '{"command": ["ls"]}',
            "call_id": "c1",
        },
        {
            "type": "function_call_output",
            "call_id": "c1",
            "output": {"content": "README.md", "success": True},
        },
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "One file."}],
        },
    ]
    transcript = load_transcript(_write(tmp_path, records), format="codex")
    assert [type(m) for m in transcript.messages] == [
        HumanMessage,
        AIMessage,
        ToolMessage,
        AIMessage,
    ]
    assert transcript.messages[2].content == "README.md"
    assert transcript.metadata["session_id"] == "old-1"


def test_a_bad_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "rollout.jsonl"
    lines = [json.dumps(r) for r in rollout_records()[:3]]
    path.write_text("\n".join([*lines, '{"type": "response_item", "payl']) + "\n", encoding="utf-8")
    with pytest.raises(TranscriptFormatError, match=r"rollout.jsonl:4:.*invalid JSON"):
        load_transcript(path)


def test_an_unknown_record_is_skipped_and_counted(tmp_path: Path) -> None:
    # Codex adds record types in new versions: the rest of the rollout still imports.
    path = _write(tmp_path, [*rollout_records(), {"type": "telemetry", "x": 1}])
    transcript = load_transcript(path, format="codex")
    assert len(transcript.messages) == len(
        load_transcript(_write(tmp_path, rollout_records())).messages
    )
    assert transcript.skipped_note() == (
        "1 line skipped: Codex record types this reader does not read (telemetry)"
    )


def test_a_rollout_of_unknown_records_only_says_why_nothing_was_read(tmp_path: Path) -> None:
    path = _write(tmp_path, [{"type": "telemetry", "payload": {}}, {"type": "telemetry"}])
    with pytest.raises(
        TranscriptFormatError,
        match=r"no Codex message could be read from it "
        r"\(2 lines skipped: Codex record types this reader does not read "
        r"\(telemetry\)\)",
    ):
        load_transcript(path, format="codex")


def test_replay_runs_over_a_rollout_and_calibrates_on_its_token_counts(tmp_path: Path) -> None:
    # Enough turns to fill a small window: each call's reply carries a long tool output.
    records = rollout_records()[:5]
    for n in range(12):
        records += [
            _call(f"c{n}", f"cat src/m{n}.py"),
            _tokens(2000 + 900 * n),
            _output(f"c{n}", f"def f{n}():\n" + "    return 1\n" * 120),
        ]
    events = list(
        replay(str(_write(tmp_path, records)), model="openai:gpt-5", window=6000, strategy="reset")
    )
    summary = events[-1]
    assert isinstance(summary, ReplaySummary)
    assert summary.format == "codex" and summary.usage_points == 12
    resets = [e for e in events if isinstance(e, ReplayReset)]
    assert resets and resets[0].basis == "calibrated"
    assert "cat src/m" in resets[0].handoff.model_dump_json()


def _turn(event: str, **fields: Any) -> dict[str, Any]:
    return _line("event_msg", {"type": event, "turn_id": "turn-1", **fields})


def test_a_message_typed_while_codex_worked_is_marked_queued(tmp_path: Path) -> None:
    """A steer (sent while the turn ran) comes into the turn as a user message after the
    turn's work; a message queued for after the turn opens the next turn: ordinary."""
    steer = "Also cover the empty-file case"
    records = [
        _line("session_meta", {"id": "sess-2", "cwd": "/home/dev/app"}),
        _turn("task_started", model_context_window=272000),
        _line("turn_context", {"cwd": "/home/dev/app", "model": "gpt-5-codex"}),
        _message(
            "user", "<environment_context>\n  <cwd>/home/dev/app</cwd>\n</environment_context>"
        ),
        _message("user", "Fix the failing test in tests/test_parse.py"),
        _line("event_msg", {"type": "user_message", "message": "Fix the failing test"}),
        _call("call_1", "pytest -q"),
        _output("call_1", "Exit code: 1"),
        _message("user", steer),
        _line("event_msg", {"type": "user_message", "message": steer}),
        _call("call_2", "pytest -q tests/test_parse.py"),
        _output("call_2", "Exit code: 0"),
        _message("assistant", "Fixed, and the empty file is covered."),
        _turn("task_complete", last_agent_message="Fixed."),
        _turn("task_started"),
        _line("turn_context", {"cwd": "/home/dev/app", "model": "gpt-5-codex"}),
        _message("user", "Now add a changelog entry"),
        _message("assistant", "Added."),
        _turn("turn_aborted", reason="interrupted"),
        _message("user", "Thanks"),  # between turns: never a steer
    ]
    messages = load_transcript(_write(tmp_path, records)).messages
    asked = [
        (m.content, bool(m.additional_kwargs.get("queued")))
        for m in messages
        if isinstance(m, HumanMessage) and not m.additional_kwargs.get("not_user")
    ]
    assert asked == [
        ("Fix the failing test in tests/test_parse.py", False),
        (steer, True),
        ("Now add a changelog entry", False),
        ("Thanks", False),
    ]
    # At its place: after the first call's output, before the call it led to.
    place = [m.content for m in messages].index(steer)
    assert isinstance(messages[place - 1], ToolMessage)
    assert messages[place + 1].tool_calls[0]["id"] == "call_2"


def test_a_rollout_without_turn_events_marks_nothing_queued(rollout: Path) -> None:
    messages = load_transcript(rollout).messages
    assert not any(m.additional_kwargs.get("queued") for m in messages)
