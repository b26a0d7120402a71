"""Agent session files written the way their agents write them, for import tests.

``claude_code_session`` follows Claude Code's JSONL records (the shapes in
``tests/agent_core/transcripts/test_transcripts.py``): streamed assistant records sharing a message id,
tool results in user records, and a compaction as a ``compact_boundary`` system record
followed by the ``isCompactSummary`` user record holding the summary it wrote.
"""

from __future__ import annotations

import json

SUMMARY = "Summary by the agent: the CSV parser handles quoted fields; tests pass; next: dates."


def claude_code_session(turns_before: int = 8, turns_after: int = 6, padding: int = 600) -> str:
    records: list[dict] = []
    uuid = iter(range(1, 10_000))
    tokens = 4000

    def user(content, **extra) -> None:
        records.append(
            {
                "type": "user",
                "sessionId": "s1",
                "uuid": f"u{next(uuid)}",
                "timestamp": "2025-06-01T10:00:00Z",
                "message": {"role": "user", "content": content},
                **extra,
            }
        )

    def assistant(blocks, used: int) -> None:
        records.append(
            {
                "type": "assistant",
                "sessionId": "s1",
                "uuid": f"u{next(uuid)}",
                "timestamp": "2025-06-01T10:00:01Z",
                "message": {
                    "id": f"msg_{next(uuid)}",
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": blocks,
                    "usage": {"input_tokens": used, "output_tokens": 40},
                },
            }
        )

    def turn(number: int) -> None:
        nonlocal tokens
        user(f"Step {number}: extend the parser for case {number}.")
        tokens += 900
        assistant(
            [
                {
                    "type": "tool_use",
                    "id": f"toolu_{number}",
                    "name": "Write",
                    "input": {
                        "file_path": f"src/case_{number}.py",
                        "content": "x = 1\n" * (padding // 6),
                    },
                }
            ],
            tokens,
        )
        user(
            [
                {
                    "type": "tool_result",
                    "tool_use_id": f"toolu_{number}",
                    "content": [{"type": "text", "text": "ok " + "log line " * (padding // 9)}],
                }
            ]
        )
        tokens += 700
        assistant([{"type": "text", "text": f"Case {number} is handled."}], tokens)

    user("Build a CSV parser for invoices with quoted fields.")
    for number in range(1, turns_before + 1):
        turn(number)
    before = tokens
    records.append(
        {
            "type": "system",
            "subtype": "compact_boundary",
            "sessionId": "s1",
            "uuid": f"u{next(uuid)}",
            "timestamp": "2025-06-01T11:00:00Z",
            "compactMetadata": {"trigger": "auto", "preTokens": before},
        }
    )
    user(
        f"This session is being continued from a previous conversation. {SUMMARY}",
        isCompactSummary=True,
    )
    tokens = 3000
    for number in range(turns_before + 1, turns_before + turns_after + 1):
        turn(number)
    return "\n".join(json.dumps(r) for r in records) + "\n"


# Messages typed while Claude Code worked ------------------------------------------------
#: Typed during the first turn and sent into it (``remove`` + ``queued_command`` attachment).
SENT_INTO_TURN = "New items were added to BACKLOG.md, tackle them too"
#: Typed during the first turn, dequeued when it ended and sent as the next prompt.
SENT_AS_PROMPT = "Then run the linters"
#: Typed, then taken back by the user (``remove`` without an attachment): never sent.
TAKEN_BACK = "Actually skip the docs"
#: Typed, pulled back into the input box (``popAll``), edited and sent as a prompt.
PULLED_BACK, EDITED = "also do the hoilday dates", "Also handle the holiday dates"
#: Typed while the last turn ran; the log ends before Claude Code took it.
STILL_QUEUED = "When done, open a pull request"


def claude_code_queued_session() -> str:
    """A Claude Code log where the user typed while the agent worked, in each way Claude
    Code journals it (its ``queue-operation`` records, as its logs hold them: ``enqueue``
    with the content as a string or as blocks, ``dequeue``/``remove``/``popAll`` without
    it; a message sent into the running turn as a ``queued_command`` attachment; a task
    notification through the same queue)."""
    records: list[dict] = []
    uuid = iter(range(1, 10_000))
    clock = iter(range(0, 3600))

    def stamp() -> str:
        second = next(clock)
        return f"2025-09-01T10:{second // 60:02d}:{second % 60:02d}.000Z"

    def user(content) -> None:
        records.append(
            {
                "type": "user",
                "sessionId": "s1",
                "uuid": f"u{next(uuid)}",
                "timestamp": stamp(),
                "message": {"role": "user", "content": content},
            }
        )

    def assistant(blocks) -> None:
        records.append(
            {
                "type": "assistant",
                "sessionId": "s1",
                "uuid": f"u{next(uuid)}",
                "timestamp": stamp(),
                "message": {
                    "id": f"msg_{next(uuid)}",
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": blocks,
                    "usage": {"input_tokens": 900, "output_tokens": 40},
                },
            }
        )

    def queue(operation: str, content=None) -> None:
        record = {
            "type": "queue-operation",
            "operation": operation,
            "timestamp": stamp(),
            "sessionId": "s1",
        }
        if content is not None:
            record["content"] = content
        records.append(record)

    def tool(number: int, path: str) -> None:
        assistant(
            [
                {
                    "type": "tool_use",
                    "id": f"toolu_{number}",
                    "name": "Edit",
                    "input": {"file_path": path, "old_string": "a", "new_string": "b"},
                }
            ]
        )
        user(
            [
                {
                    "type": "tool_result",
                    "tool_use_id": f"toolu_{number}",
                    "content": [{"type": "text", "text": "ok"}],
                }
            ]
        )

    user("Add CSV export to the report page")
    tool(1, "app/report.py")
    queue("enqueue", SENT_INTO_TURN)
    queue("enqueue", [{"type": "text", "text": SENT_AS_PROMPT}])
    queue(
        "enqueue",
        "<task-notification><task-id>a1</task-id><status>completed</status></task-notification>",
    )
    tool(2, "app/export.py")
    queue("remove")
    records.append(
        {
            "type": "attachment",
            "sessionId": "s1",
            "uuid": f"u{next(uuid)}",
            "timestamp": stamp(),
            "attachment": {
                "type": "queued_command",
                "prompt": SENT_INTO_TURN,
                "commandMode": "prompt",
                "origin": {"kind": "human"},
            },
        }
    )
    records.append(
        {
            "type": "attachment",
            "sessionId": "s1",
            "uuid": f"u{next(uuid)}",
            "timestamp": stamp(),
            "attachment": {
                "type": "queued_command",
                "commandMode": "prompt",
                "prompt": "<task-notification><task-id>a1</task-id></task-notification>",
            },
        }
    )
    tool(3, "BACKLOG.md")
    assistant([{"type": "text", "text": "CSV export is done and the backlog items too."}])
    queue("dequeue")
    user(SENT_AS_PROMPT)
    queue("enqueue", TAKEN_BACK)
    tool(4, "setup.cfg")
    queue("remove")
    queue("enqueue", PULLED_BACK)
    queue("popAll", PULLED_BACK)
    assistant([{"type": "text", "text": "The linters pass."}])
    user(EDITED)
    tool(5, "app/dates.py")
    queue("enqueue", STILL_QUEUED)
    return "\n".join(json.dumps(r) for r in records) + "\n"
