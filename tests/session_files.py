"""Agent session files written the way their agents write them, for import tests.

``claude_code_session`` follows Claude Code's JSONL records (the shapes in
``tests/agent_core/test_transcripts.py``): streamed assistant records sharing a message id,
tool results in user records, and a compaction as a ``compact_boundary`` system record
followed by the ``isCompactSummary`` user record holding the summary it wrote.
"""

from __future__ import annotations

import json

SUMMARY = "Summary by the agent: the CSV parser handles quoted fields; tests pass; next: dates."


def claude_code_session(turns_before: int = 8, turns_after: int = 6,
                        padding: int = 600) -> str:
    records: list[dict] = []
    uuid = iter(range(1, 10_000))
    tokens = 4000

    def user(content, **extra) -> None:
        records.append({"type": "user", "sessionId": "s1", "uuid": f"u{next(uuid)}",
                        "timestamp": "2025-06-01T10:00:00Z",
                        "message": {"role": "user", "content": content}, **extra})

    def assistant(blocks, used: int) -> None:
        records.append({"type": "assistant", "sessionId": "s1", "uuid": f"u{next(uuid)}",
                        "timestamp": "2025-06-01T10:00:01Z",
                        "message": {"id": f"msg_{next(uuid)}", "role": "assistant",
                                    "model": "claude-sonnet-4-5", "content": blocks,
                                    "usage": {"input_tokens": used, "output_tokens": 40}}})

    def turn(number: int) -> None:
        nonlocal tokens
        user(f"Step {number}: extend the parser for case {number}.")
        tokens += 900
        assistant([{"type": "tool_use", "id": f"toolu_{number}", "name": "Write",
                    "input": {"file_path": f"src/case_{number}.py",
                              "content": "x = 1\n" * (padding // 6)}}], tokens)
        user([{"type": "tool_result", "tool_use_id": f"toolu_{number}",
               "content": [{"type": "text", "text": "ok " + "log line " * (padding // 9)}]}])
        tokens += 700
        assistant([{"type": "text", "text": f"Case {number} is handled."}], tokens)

    user("Build a CSV parser for invoices with quoted fields.")
    for number in range(1, turns_before + 1):
        turn(number)
    before = tokens
    records.append({"type": "system", "subtype": "compact_boundary", "sessionId": "s1",
                    "uuid": f"u{next(uuid)}", "timestamp": "2025-06-01T11:00:00Z",
                    "compactMetadata": {"trigger": "auto", "preTokens": before}})
    user(f"This session is being continued from a previous conversation. {SUMMARY}",
         isCompactSummary=True)
    tokens = 3000
    for number in range(turns_before + 1, turns_before + turns_after + 1):
        turn(number)
    return "\n".join(json.dumps(r) for r in records) + "\n"
