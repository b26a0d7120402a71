"""Every message the user typed while Claude Code worked is kept, whichever way its queue
journaled it (issue 42: "What was found" 8)."""

from __future__ import annotations

import json
from pathlib import Path

from langchain_core.messages import HumanMessage

from agent_core.handoff._facts import extract_facts
from agent_core.transcripts import load_transcript

CHECK_AGAIN = "check again"
SENT = "also cover the empty file case"


def _record(kind: str, n: int, **fields) -> dict:
    return {"type": kind, "sessionId": "s1", "timestamp": f"2025-09-01T10:00:{n:02d}Z", **fields}


def _session() -> list[dict]:
    """Two messages typed while the agent worked; a content-less ``remove`` and the
    ``queued_command`` attachment of the second (sent into the turn); the first dequeued and
    sent as the next prompt."""
    return [
        _record("user", 1, uuid="u1", message={"role": "user", "content": "Fix the parser"}),
        _record("queue-operation", 2, operation="enqueue", content=CHECK_AGAIN),
        _record("queue-operation", 3, operation="enqueue", content=SENT),
        _record("queue-operation", 4, operation="remove"),
        _record(
            "attachment",
            5,
            uuid="a1",
            attachment={
                "type": "queued_command",
                "prompt": SENT,
                "commandMode": "prompt",
                "origin": {"kind": "human"},
            },
        ),
        _record(
            "assistant",
            6,
            uuid="u2",
            message={"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "Ok."}]},
        ),
        _record("queue-operation", 7, operation="dequeue"),
        _record("user", 8, uuid="u3", message={"role": "user", "content": CHECK_AGAIN}),
    ]


def _typed(path: Path) -> list[str]:
    return [
        str(m.content)
        for m in load_transcript(path).messages
        if isinstance(m, HumanMessage) and not m.additional_kwargs.get("not_user")
    ]


def test_a_contentless_remove_never_drops_another_typed_message(tmp_path: Path) -> None:
    path = tmp_path / "queue.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in _session()) + "\n", encoding="utf-8")
    typed = _typed(path)
    assert typed.count(SENT) == 1 and typed.count(CHECK_AGAIN) == 1
    requests = [r.text for r in extract_facts(load_transcript(path).messages).requests]
    assert SENT in requests and CHECK_AGAIN in requests


def test_a_contentless_remove_while_several_wait_and_none_is_sent_loses_none(
    tmp_path: Path,
) -> None:
    records = [
        *_session()[:3],
        _record("queue-operation", 4, operation="remove"),
        _record(
            "assistant",
            6,
            uuid="u2",
            message={"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "Ok."}]},
        ),
    ]
    path = tmp_path / "queue.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    assert {CHECK_AGAIN, SENT} <= set(_typed(path))
