"""Transcript importers on the shared evaluation data and on malformed input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from agent_core.errors import TranscriptFormatError
from agent_core.transcripts import load_transcript
from agent_core.transcripts._transcript import NOT_SENT
from tests.shared_data import eval_path

_CLAUDE_CODE_RECORDS = [
    {"type": "summary", "summary": "Fix the failing parser test", "leafUuid": "u0"},
    {
        "type": "user",
        "sessionId": "s1",
        "uuid": "u1",
        "parentUuid": None,
        "timestamp": "2025-06-01T10:00:00Z",
        "message": {"role": "user", "content": "Why does test_parse fail?"},
    },
    {
        "type": "assistant",
        "sessionId": "s1",
        "uuid": "u2",
        "timestamp": "2025-06-01T10:00:03Z",
        "message": {
            "id": "msg_1",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "Let me look."}],
            "usage": {
                "input_tokens": 12,
                "cache_creation_input_tokens": 3000,
                "cache_read_input_tokens": 9000,
                "output_tokens": 5,
            },
        },
    },
    {
        "type": "assistant",
        "sessionId": "s1",
        "uuid": "u3",
        "timestamp": "2025-06-01T10:00:04Z",
        "message": {
            "id": "msg_1",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "Read",
                    "input": {"file_path": "src/parse.py"},
                }
            ],
            "usage": {
                "input_tokens": 12,
                "cache_creation_input_tokens": 3000,
                "cache_read_input_tokens": 9000,
                "output_tokens": 41,
            },
        },
    },
    {
        "type": "user",
        "sessionId": "s1",
        "uuid": "u4",
        "timestamp": "2025-06-01T10:00:05Z",
        "message": {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "content": [{"type": "text", "text": "def parse(): ..."}],
                }
            ],
        },
    },
    {
        "type": "system",
        "subtype": "compact_boundary",
        "sessionId": "s1",
        "uuid": "u5",
        "timestamp": "2025-06-01T11:00:00Z",
        "compactMetadata": {"trigger": "auto", "preTokens": 155000},
    },
    {
        "type": "user",
        "sessionId": "s1",
        "uuid": "u6",
        "isCompactSummary": True,
        "timestamp": "2025-06-01T11:00:01Z",
        "message": {"role": "user", "content": "This session is being continued: summary..."},
    },
]


def _jsonl(records: list[dict]) -> str:
    return "\n".join(json.dumps(r) for r in records) + "\n"


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def claude_code_file(tmp_path: Path) -> Path:
    lines = "\n".join(json.dumps(r) for r in _CLAUDE_CODE_RECORDS)
    return _write(tmp_path, "session.jsonl", lines + "\n")


def test_claude_code_merges_streamed_records_and_keeps_usage(claude_code_file: Path) -> None:
    transcript = load_transcript(claude_code_file)
    assert transcript.format == "claude_code"
    kinds = [type(m) for m in transcript.messages]
    assert kinds == [HumanMessage, AIMessage, ToolMessage, HumanMessage]
    reply = transcript.messages[1]
    assert reply.content == "Let me look."
    assert reply.tool_calls[0]["name"] == "Read"
    assert reply.tool_calls[0]["args"] == {"file_path": "src/parse.py"}
    assert transcript.messages[2].tool_call_id == "toolu_1"
    assert transcript.messages[2].content == "def parse(): ..."
    (usage,) = transcript.usage
    assert (usage.message_index, usage.input_tokens, usage.output_tokens) == (1, 12012, 41)


def test_claude_code_keeps_compaction_markers_and_timestamps(claude_code_file: Path) -> None:
    transcript = load_transcript(claude_code_file)
    kinds = [c["kind"] for c in transcript.metadata["compactions"]]
    assert kinds == ["compact_boundary", "compact_summary"]
    assert transcript.metadata["compactions"][0]["metadata"]["preTokens"] == 155000
    assert transcript.messages[3].additional_kwargs["compact_summary"] is True
    assert transcript.messages[0].additional_kwargs["timestamp"] == "2025-06-01T10:00:00Z"
    assert transcript.metadata["summaries"] == ["Fix the failing parser test"]


def test_a_bad_jsonl_line_is_named(tmp_path: Path) -> None:
    good = json.dumps(_CLAUDE_CODE_RECORDS[1])
    path = _write(tmp_path, "broken.jsonl", f'{good}\n{good}\n{{"type": "user", \n')
    with pytest.raises(TranscriptFormatError) as caught:
        load_transcript(path)
    assert caught.value.line == 3
    assert "one JSON object per line" in str(caught.value)


def test_a_foreign_first_line_is_skipped_and_counted(tmp_path: Path) -> None:
    # A log-sharing tool's metadata line (no 'type') at the top of a Claude Code session.
    records = [{"sharedBy": "logshare", "sessionId": "s1"}, *_CLAUDE_CODE_RECORDS]
    text = "\n".join(json.dumps(r) for r in records) + '\n"a string"\n[1, 2]\n'
    transcript = load_transcript(_write(tmp_path, "shared.jsonl", text))
    plain = load_transcript(_write(tmp_path, "plain.jsonl", _jsonl(_CLAUDE_CODE_RECORDS)))
    assert transcript.format == "claude_code"
    assert len(transcript.messages) == len(plain.messages) > 0
    assert transcript.skipped_note() == "3 lines skipped: not Claude Code records"


def test_record_types_of_newer_versions_are_skipped_by_name(tmp_path: Path) -> None:
    records = [*_CLAUDE_CODE_RECORDS, {"type": "hologram", "sessionId": "s1"}]
    transcript = load_transcript(_write(tmp_path, "new.jsonl", _jsonl(records)))
    assert transcript.skipped == {
        "Claude Code record types this reader does not read (hologram)": 1
    }


def test_a_user_record_without_its_message_is_skipped_not_fatal(tmp_path: Path) -> None:
    records = [*_CLAUDE_CODE_RECORDS, {"type": "user", "sessionId": "s1", "uuid": "x"}]
    transcript = load_transcript(_write(tmp_path, "cut.jsonl", _jsonl(records)))
    assert transcript.skipped == {"user records without a message": 1}


def test_a_session_cut_off_mid_record_imports_what_was_written(tmp_path: Path) -> None:
    # The file of a session still being written ends in half a record, with no line end.
    text = _jsonl(_CLAUDE_CODE_RECORDS) + '{"type": "assistant", "message": {"con'
    transcript = load_transcript(_write(tmp_path, "live.jsonl", text))
    whole = load_transcript(_write(tmp_path, "whole.jsonl", _jsonl(_CLAUDE_CODE_RECORDS)))
    assert len(transcript.messages) == len(whole.messages)
    assert transcript.skipped_note() == (
        "1 line skipped: a last line cut off mid-record (the session was still being written)"
    )


def test_a_file_with_no_readable_message_says_why(tmp_path: Path) -> None:
    path = _write(tmp_path, "odd.jsonl", '{"sessionId": "s"}\n')
    with pytest.raises(
        TranscriptFormatError,
        match=r"no Claude Code message could be read "
        r"from it \(1 line skipped: not Claude Code records\)",
    ):
        load_transcript(path)


def test_openai_chat_list_and_object_forms(tmp_path: Path) -> None:
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "weather?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "weather", "arguments": '{"city": "Oslo"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "rain"},
    ]
    for name, document in (("a.json", messages), ("b.json", {"messages": messages})):
        transcript = load_transcript(_write(tmp_path, name, json.dumps(document)))
        assert transcript.format == "openai"
        assert [type(m) for m in transcript.messages] == [
            SystemMessage,
            HumanMessage,
            AIMessage,
            ToolMessage,
        ]
        assert transcript.messages[2].tool_calls[0]["args"] == {"city": "Oslo"}


def test_truncated_json_names_the_line(tmp_path: Path) -> None:
    text = '[\n  {"role": "user", "content": "hi"},\n  {"role": "assistant", "con'
    with pytest.raises(TranscriptFormatError, match="truncated") as caught:
        load_transcript(_write(tmp_path, "cut.json", text))
    assert caught.value.line == 3


def test_openai_message_without_role_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(TranscriptFormatError, match="message 1"):
        load_transcript(_write(tmp_path, "x.json", '[{"role": "user", "content": ""}, {}]'))


def _swe_agent_cases() -> list[tuple[str, dict]]:
    truth = json.loads(
        eval_path("swe-agent-trajectories", "derived", "ground_truth.json").read_text()
    )
    return list(truth["trajectories"].items())


def test_swe_agent_trajectories_match_ground_truth() -> None:
    root = eval_path("swe-agent-trajectories", "files")
    for relative, truth in _swe_agent_cases():
        transcript = load_transcript(root / relative)
        assert transcript.format == "swe_agent"
        assert len(transcript.messages) == truth["history_messages"], relative
        roles = {"system": 0, "user": 0, "assistant": 0, "tool": 0}
        for message in transcript.messages:
            roles[{"human": "user", "ai": "assistant"}.get(message.type, message.type)] += 1
        assert {k: v for k, v in roles.items() if v} == truth["roles"], relative
        calls = sum(len(m.tool_calls) for m in transcript.messages if isinstance(m, AIMessage))
        assert (calls > 0) == truth["openai_tool_calls"], relative
        assert transcript.metadata.get("model_stats") == truth.get("model_stats"), relative
        assert transcript.usage == []  # tokens_sent is a total, not per call


def test_swe_agent_tool_messages_point_at_their_calls() -> None:
    path = eval_path(
        "swe-agent-trajectories",
        "files",
        "trajectories",
        "demonstrations",
        "function_calling_simple.traj",
    )
    transcript = load_transcript(path)
    call_ids = {
        c["id"] for m in transcript.messages if isinstance(m, AIMessage) for c in m.tool_calls
    }
    results = [m for m in transcript.messages if isinstance(m, ToolMessage)]
    assert results and all(m.tool_call_id in call_ids for m in results)


@pytest.fixture(scope="module")
def aider_transcript():
    return load_transcript(eval_path("aider-chat-history", "chat-history.md"))


@pytest.fixture(scope="module")
def aider_truth() -> dict:
    return json.loads(eval_path("aider-chat-history", "derived", "ground_truth.json").read_text())


def test_aider_sessions_and_markers_match_ground_truth(aider_transcript, aider_truth) -> None:
    sessions = aider_transcript.metadata["sessions"]
    assert len(sessions) == aider_truth["n_sessions"]
    assert [s["started_at"] for s in sessions] == [s["started_at"] for s in aider_truth["sessions"]]
    events = aider_transcript.metadata["events"]
    truth = aider_truth["sessions"]
    for kind, key in (
        ("applied_edit", "applied_edits"),
        ("commit", "commits"),
        ("added_file", "added_to_chat"),
        ("tokens", "tokens_reports"),
    ):
        assert sum(e["kind"] == kind for e in events) == sum(len(s[key]) for s in truth), kind


def test_aider_usage_is_per_request_and_attached_to_replies(aider_transcript) -> None:
    usage = aider_transcript.usage
    assert len(usage) > 800
    assert (usage[0].input_tokens, usage[0].output_tokens) == (5244, 604)
    assert all(isinstance(aider_transcript.messages[u.message_index], AIMessage) for u in usage)


def test_aider_user_lines_become_one_request(aider_transcript) -> None:
    first_request = next(m for m in aider_transcript.messages if isinstance(m, HumanMessage))
    assert first_request.content.startswith("# Fix any errors below, if possible.")
    assert "aider/repomap.py:23:1: E402" in first_request.content


def test_aider_cached_tokens_count_as_input(tmp_path: Path) -> None:
    text = (
        "# aider chat started at 2024-08-20 10:00:00\n\n#### hi  \n\nHello!\n\n"
        "> Tokens: 492 sent, 1,278 cached, 72 received. Cost: $0.0026 message.  \n"
    )
    transcript = load_transcript(_write(tmp_path, "h.md", text))
    assert transcript.usage[0].input_tokens == 492 + 1278
    assert transcript.messages[1].additional_kwargs["session_started_at"] == "2024-08-20 10:00:00"


def test_aider_unreadable_token_line_is_named(tmp_path: Path) -> None:
    text = "# aider chat started at 2024-08-20 10:00:00\n\n#### hi\n\nHello!\n\n> Tokens: lots\n"
    with pytest.raises(TranscriptFormatError, match="N sent") as caught:
        load_transcript(_write(tmp_path, "h.md", text))
    assert caught.value.line == 7


_AIDER_SESSION = """# aider chat started at 2024-08-20 10:00:00

> Models: claude-3-5-sonnet-20240620 with \u267e\ufe0f diff edit format, weak model x

#### /add aider/io.py
> Added aider/io.py to the chat

#### make the prompt bold

Here is the change:

aider/io.py
```python
<<<<<<< SEARCH
    prompt = "> "
=======
    prompt = "**> **"
>>>>>>> REPLACE
```

Done.

> Tokens: 2,000 sent, 80 received.
> The LLM did not conform to the edit format.
> https://aider.chat/docs/troubleshooting/edit-errors.html
> # 1 SEARCH/REPLACE block failed to match!
> Are you sure you need this SEARCH/REPLACE block?

Sorry, here is the corrected block.

> Tokens: 2,150 sent, 60 received.
> Applied edit to aider/io.py
> Commit 1a2b3c4 feat: bold prompt

#### /ask why bold?

####  why bold?

Because it stands out.

> Tokens: 1,900 sent, 20 received.

#### /clear

#### next task

Sure.

> Tokens: 1,500 sent, 10 received.
"""


@pytest.fixture()
def aider_session(tmp_path: Path):
    return load_transcript(_write(tmp_path, "h.md", _AIDER_SESSION))


def test_aider_edit_block_closing_marker_stays_in_the_reply(aider_session) -> None:
    reply = aider_session.messages[aider_session.usage[0].message_index]
    assert isinstance(reply, AIMessage)
    assert ">>>>>>> REPLACE\n```\n\nDone." in reply.content
    assert reply.content.startswith("Here is the change:")


def test_aider_reflection_is_what_aider_sent_back(aider_session) -> None:
    first, second = aider_session.usage[0], aider_session.usage[1]
    reflection = aider_session.messages[first.message_index + 1]
    assert second.message_index == first.message_index + 2
    assert isinstance(reflection, HumanMessage)
    assert reflection.additional_kwargs["aider_reflection"] is True
    # The error text the model saw, without aider's own bookkeeping lines.
    assert reflection.content == (
        "# 1 SEARCH/REPLACE block failed to match!\n"
        "Are you sure you need this SEARCH/REPLACE block?"
    )


def test_aider_commands_are_recorded_but_not_sent(aider_session) -> None:
    commands = [m for m in aider_session.messages if m.additional_kwargs.get(NOT_SENT)]
    assert [m.additional_kwargs[NOT_SENT] for m in commands] == ["add", "ask", "clear"]
    for point in aider_session.usage:
        assert not any(m.content.startswith("/") for m in aider_session.prompt(point))


def test_aider_chat_mode_labels_each_call(aider_session) -> None:
    assert [u.system_label for u in aider_session.usage] == ["diff", "diff", "ask", "diff"]
    ask = aider_session.prompt(aider_session.usage[2])
    assert ask[-1].content == "why bold?"


def test_aider_clear_starts_the_prompt_afresh(aider_session) -> None:
    last = aider_session.usage[-1]
    assert [m.content for m in aider_session.prompt(last)] == ["next task"]
    assert aider_session.prompt(aider_session.usage[0])[0].content == "make the prompt bold"


def test_aider_command_prefixes_resolve_like_aider(tmp_path: Path) -> None:
    text = "#### /clea  \n\n#### /tok  \n\n#### /c  \n\n#### hello  \n\nHi.\n"
    messages = load_transcript(_write(tmp_path, "h.md", text)).messages
    assert [m.additional_kwargs.get(NOT_SENT) for m in messages] == [
        "clear",
        "tokens",
        True,
        None,
        None,
    ]


def test_unknown_format_name_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(TranscriptFormatError, match="unknown transcript format"):
        load_transcript(_write(tmp_path, "a.json", "[]"), format="csv")


def test_auto_detection_by_content(tmp_path: Path, claude_code_file: Path) -> None:
    renamed = _write(tmp_path, "log.txt", claude_code_file.read_text())
    assert load_transcript(renamed).format == "claude_code"
    history = _write(
        tmp_path, "notes.txt", "# aider chat started at 2024-08-20 10:00:00\n\n#### Fix it\n"
    )
    assert load_transcript(history).format == "aider"


def test_claude_code_records_that_are_not_the_user_are_never_requests(tmp_path: Path) -> None:
    from agent_core.handoff._facts import extract_facts

    def user(content: object, **extra: object) -> str:
        return json.dumps(
            {
                "type": "user",
                "sessionId": "s",
                "uuid": str(len(str(content))),
                "message": {"role": "user", "content": content},
                **extra,
            }
        )

    lines = [
        user("Fix the date parser. Never touch the CLI."),
        user("<command-name>/clear</command-name>\n<command-message>clear</command-message>"),
        user("<local-command-stdout>cleared</local-command-stdout>"),
        user(
            "Caveat: The messages below were generated by the user while running local "
            "commands. DO NOT respond to these messages",
            isMeta=True,
        ),
        user("<task-notification>background task finished</task-notification>"),
        user([{"type": "text", "text": "[Request interrupted by user for tool use]"}]),
        user("<system-reminder>hook output</system-reminder>"),
        user("also parse ISO weeks"),
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    transcript = load_transcript(path)
    reasons = [m.additional_kwargs.get("not_user") for m in transcript.messages]
    assert reasons == [
        None,
        "slash_command",
        "command_output",
        "meta",
        "task_notification",
        "interruption",
        "system_reminder",
        None,
    ]
    facts = extract_facts(transcript.messages, metadata=transcript.metadata)
    assert facts.user_requests == [
        "Fix the date parser. Never touch the CLI.",
        "also parse ISO weeks",
    ]


def test_claude_code_paths_are_shown_relative_to_the_sessions_directory(tmp_path: Path) -> None:
    from agent_core.handoff._facts import extract_facts

    def record(kind: str, message: dict, uuid: str) -> str:
        return json.dumps(
            {
                "type": kind,
                "sessionId": "s",
                "uuid": uuid,
                "cwd": "/home/ana/shop",
                "message": message,
            }
        )

    edit = {
        "type": "tool_use",
        "id": "t1",
        "name": "Edit",
        "input": {"file_path": "/home/ana/shop/src/cart.py", "old_string": "a", "new_string": "b"},
    }
    lines = [
        record("user", {"role": "user", "content": "Fix the cart total"}, "u1"),
        record("assistant", {"id": "m1", "role": "assistant", "content": [edit]}, "u2"),
        record(
            "user",
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "edited"}],
            },
            "u3",
        ),
    ]
    path = _write(tmp_path, "cwd.jsonl", "\n".join(lines) + "\n")
    transcript = load_transcript(path)
    assert transcript.metadata["cwd"] == "/home/ana/shop"
    facts = extract_facts(transcript.messages, metadata=transcript.metadata)
    assert [change.path for change in facts.files_modified] == ["src/cart.py"]


# Messages typed while the agent worked -----------------------------------------------------
def _requests(messages) -> list[tuple[str, bool]]:
    """The user's own messages in order, each with whether it was typed while the agent ran."""
    return [
        (m.content, bool(m.additional_kwargs.get("queued")))
        for m in messages
        if isinstance(m, HumanMessage) and not m.additional_kwargs.get("not_user")
    ]


def test_claude_code_keeps_what_the_user_typed_while_the_agent_worked(tmp_path: Path) -> None:
    from tests import session_files as s

    transcript = load_transcript(_write(tmp_path, "queued.jsonl", s.claude_code_queued_session()))
    assert _requests(transcript.messages) == [
        ("Add CSV export to the report page", False),
        (s.SENT_INTO_TURN, True),  # where the agent got it: the queued_command attachment
        (s.SENT_AS_PROMPT, False),  # dequeued into the next prompt: that record, once
        (s.EDITED, False),  # pulled back (popAll) and edited: only what was sent
        (s.STILL_QUEUED, True),  # typed, never taken: kept where it was typed
    ]
    texts = [str(m.content) for m in transcript.messages]
    assert s.TAKEN_BACK not in texts and s.PULLED_BACK not in texts
    # Each request once, at its place in time: the mid-turn one between the tool calls.
    sent = texts.index(s.SENT_INTO_TURN)
    assert isinstance(transcript.messages[sent - 1], ToolMessage)
    assert isinstance(transcript.messages[sent + 2], AIMessage)
    queued = transcript.messages[sent]
    assert queued.additional_kwargs["timestamp"].startswith("2025-09-01T10:")
    # Claude Code's own input through the queue is kept, as not the user.
    [notice] = [m for m in transcript.messages if "<task-notification>" in str(m.content)]
    assert notice.additional_kwargs["not_user"] == "task_notification"
    assert "queued" not in notice.additional_kwargs
    last = transcript.messages[-1]
    assert last.content == s.STILL_QUEUED and last.additional_kwargs["queued"] is True


def test_a_queued_message_taken_into_a_prompt_is_not_doubled_or_lost(tmp_path: Path) -> None:
    """The first prompt of a session is often journaled as enqueue + dequeue before its
    user record; a queue record never sent stays; a removed one with its text goes."""
    records = [
        {
            "type": "queue-operation",
            "operation": "enqueue",
            "content": "Fix the parser",
            "sessionId": "s1",
            "timestamp": "2025-09-01T09:00:00Z",
        },
        {
            "type": "queue-operation",
            "operation": "dequeue",
            "sessionId": "s1",
            "timestamp": "2025-09-01T09:00:00Z",
        },
        {
            "type": "user",
            "sessionId": "s1",
            "uuid": "u1",
            "timestamp": "2025-09-01T09:00:01Z",
            "message": {"role": "user", "content": "Fix the parser"},
        },
        {
            "type": "queue-operation",
            "operation": "enqueue",
            "content": "and the dates",
            "sessionId": "s1",
            "timestamp": "2025-09-01T09:00:02Z",
        },
        {
            "type": "queue-operation",
            "operation": "enqueue",
            "content": "no, forget it",
            "sessionId": "s1",
            "timestamp": "2025-09-01T09:00:03Z",
        },
        {
            "type": "queue-operation",
            "operation": "remove",
            "content": "no, forget it",
            "sessionId": "s1",
            "timestamp": "2025-09-01T09:00:04Z",
        },
        {
            "type": "assistant",
            "sessionId": "s1",
            "uuid": "u2",
            "timestamp": "2025-09-01T09:00:05Z",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [{"type": "text", "text": "Done."}],
            },
        },
    ]
    path = _write(tmp_path, "first.jsonl", "\n".join(json.dumps(r) for r in records) + "\n")
    assert _requests(load_transcript(path).messages) == [
        ("Fix the parser", False),
        ("and the dates", True),
    ]


# Deeply nested JSON ---------------------------------------------------------------------------
def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("deep.json", _nested(100_000)),
        ("deep.traj", '{"history": ' + _nested(50_000) + ', "info": {}}'),
        (
            "deep.jsonl",
            '{"type": "user", "message": ' + '{"a": ' * 100_000 + "1" + "}" * 100_000 + "}\n",
        ),
        ("rollout.jsonl", '{"type": "session_meta", "payload": ' + _nested(3_000) + "}\n"),
        ("shallow-but-too-deep.json", '[{"role": "user", "content": ' + _nested(900) + "}]"),
    ],
)
def test_deeply_nested_json_is_refused_with_the_reason(
    tmp_path: Path, name: str, text: str
) -> None:
    # Python's parser stops with a RecursionError near a thousand levels, and what reads
    # the records after it recurses too: no session nests anywhere near the limit.
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(
        TranscriptFormatError,
        match=r"nested [\d,]+ levels deep; a session "
        r"file nests at most 100",
    ):
        load_transcript(path)


def test_a_session_nested_to_the_limit_still_loads(tmp_path: Path) -> None:
    arguments: object = 1
    for _ in range(97):  # the record, its message, its content list and block: 101 levels
        arguments = {"a": arguments}
    records = [
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "write it"}},
        {
            "type": "assistant",
            "uuid": "a1",
            "message": {
                "role": "assistant",
                "id": "m1",
                "content": [{"type": "tool_use", "id": "t1", "name": "Write", "input": arguments}],
            },
        },
    ]
    path = tmp_path / "deep.jsonl"
    path.write_text("\n".join(json.dumps(record) for record in records))
    with pytest.raises(TranscriptFormatError, match="nested 101 levels"):
        load_transcript(path)
    records[1]["message"]["content"][0]["input"] = arguments["a"]  # 100 levels
    path.write_text("\n".join(json.dumps(record) for record in records))
    assert load_transcript(path).messages[-1].tool_calls[0]["name"] == "Write"


def test_brackets_in_strings_and_escaped_quotes_do_not_count_as_nesting() -> None:
    from agent_core.transcripts._loader import json_depth

    assert json_depth('{"a": [1, {"b": "]]]] \\" [[[[ {{"}]}') == 3
    assert json_depth('{"a": "x\\\\"}\n{"b": ["[["]}') == 2
    assert json_depth("[" * 300 + "]" * 300) == 300


def test_records_of_the_wrong_shape_are_refused_in_words(tmp_path: Path) -> None:
    path = tmp_path / "odd.json"
    path.write_text(json.dumps([{"role": "user", "content": [[["not a content block"]]]}]))
    with pytest.raises(
        TranscriptFormatError,
        match="its openai records do not hold what such "
        r"a session holds \(ValidationError\)",
    ):
        load_transcript(path)
