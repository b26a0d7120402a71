"""The replay CLI on real transcripts: one JSON line per reset/compaction and a summary."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage

from agent_core.transcripts import load_transcript
from scripts.swe_to_claude_code import convert
from tests.shared_data import REPO_ROOT, eval_path


def _cli(*args: str) -> list[dict]:
    done = subprocess.run(
        [sys.executable, "-m", "agent_core", "replay", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


def _is_request(message: object) -> bool:
    from langchain_core.messages import HumanMessage

    from agent_core.transcripts._transcript import NOT_SENT

    return isinstance(message, HumanMessage) and not any(
        message.additional_kwargs.get(k) for k in ("not_user", NOT_SENT, "aider_reflection")
    )


def _aider_chats(log: Path) -> list[tuple[int, int, str]]:
    """Each separate chat of an aider log that holds a request: the index of its first
    message, and the index and text of its first request (a ``####`` line that is no
    ``/command``)."""
    transcript = load_transcript(log)
    starts = [s["message_index"] for s in transcript.metadata["sessions"]]
    chats = []
    for start, end in zip(starts, [*starts[1:], len(transcript.messages)], strict=True):
        asked = next(
            (
                (i, str(m.content))
                for i, m in enumerate(transcript.messages[start:end], start=start)
                if _is_request(m)
            ),
            None,
        )
        if asked is not None:
            chats.append((start, asked[0], asked[1]))
    return chats


def _chat_at(chats: list[tuple[int, int, str]], index: int) -> tuple[int, int, str]:
    """The chat under way at message ``index``: the last one asked something by then."""
    return [chat for chat in chats if chat[1] <= index][-1]


def test_aider_log_resets_with_calibrated_utilization_and_grounded_handoffs() -> None:
    log = eval_path("aider-chat-history", "chat-history.md")
    lines = _cli(str(log), "--model", "anthropic:claude-sonnet-4-5", "--window", "32000")
    summary = lines[-1]
    resets = [e for e in lines if e["event"] == "reset"]
    assert summary["event"] == "summary" and summary["format"] == "aider"
    assert summary["resets"] == len(resets) >= 5
    assert all(e["utilization"] >= 0.8 for e in resets)
    assert {e["basis"] for e in resets} >= {"calibrated"}
    # The log holds many separate chats: each handoff's goal is the first request of the
    # chat it closes, not the first chat's.
    chats = _aider_chats(log)
    messages = load_transcript(log).messages
    for e in resets:
        _, _, first_request = _chat_at(chats, e["message_index"])
        assert " ".join(first_request.split())[:50] in " ".join(e["handoff"]["goal"].split())
    assert len({e["handoff"]["goal"] for e in resets}) > len(resets) // 2

    # Chained within a chat: every handoff carries the previous one's requests, held or
    # counted in an "omitted" line: the count never goes down while the chat goes on.
    def carried(e) -> int:
        items = e["handoff"]["user_messages"]
        return sum(int(i.split()[1]) if i.startswith("(omitted: ") else 1 for i in items)

    for before, after in zip(resets, resets[1:], strict=False):
        if _chat_at(chats, before["message_index"]) == _chat_at(chats, after["message_index"]):
            assert carried(after) >= carried(before)
    # aider answers every request in its reply: nothing is claimed to be under way unless an
    # answer is missing, and the next step never repeats a request.
    for e in resets:
        handoff = e["handoff"]
        open_ = [
            m for m in handoff["user_messages"] if m.startswith("[") and "open" in m.split("]")[0]
        ]
        # ... or the goal itself (asked again, after a /clear say) has no answer yet.
        start, _, goal_text = _chat_at(chats, e["message_index"])
        last = max(i for i in range(start, e["message_index"] + 1) if _is_request(messages[i]))
        goal_open = messages[last].content == goal_text and not any(
            isinstance(m, AIMessage) for m in messages[last : e["message_index"] + 1]
        )
        assert bool(handoff["in_progress"]) == bool(open_ or goal_open), handoff["in_progress"]
        assert handoff["next_step"] not in handoff["user_messages"] + [handoff["goal"]]


def test_each_aider_handoff_lists_the_edits_of_its_own_session() -> None:
    # aider's applied edits are importer events; a handoff must list the files edited in the
    # session it closes, not those of the transcript's first messages.
    from agent_core.replay import ReplayReset
    from agent_core.replay._run import replay
    from agent_core.transcripts import load_transcript

    log = eval_path("aider-chat-history", "chat-history.md")
    edits = [
        (e["message_index"], e["path"])
        for e in load_transcript(log).metadata["events"]
        if e["kind"] == "applied_edit"
    ]
    resets = [
        e
        for e in replay(str(log), model="anthropic:claude-sonnet-4-6", window=32000)
        if isinstance(e, ReplayReset)
    ]
    assert len(resets) >= 20
    chats = _aider_chats(log)
    previous = -1
    for reset in resets:
        index = reset.message_index
        # A handoff describes the separate chat it closes: edits of an earlier chat are not its.
        previous = max(previous, _chat_at(chats, index)[0] - 1)
        number = reset.handoff.session_number
        # The artifact is cumulative: this session's files are those it names this session for.
        files = [f for f in reset.handoff.files_modified if number in f.sessions]
        listed = {f.path for f in files}
        inside = {path for at, path in edits if previous + 1 < at <= index}
        around = {path for at, path in edits if previous < at <= index + 1}
        assert inside <= listed, (index, inside - listed)
        from_events = {f.path for f in files if f.evidence == "aider applied edit"}
        assert from_events <= around, (index, from_events - around)
        previous = index


def test_opus_class_models_compact_instead_of_resetting() -> None:
    log = eval_path("aider-chat-history", "chat-history.md")
    summary = _cli(str(log), "--model", "anthropic:claude-opus-4-1", "--window", "32000")[-1]
    assert summary["compactions"] > 0


def test_claude_code_session_replays(tmp_path: Path) -> None:
    traj = next(
        eval_path("swe-agent-trajectories", "files", "trajectories", "demonstrations").glob(
            "*function_calling_replace__install-1/*.traj"
        )
    )
    session = tmp_path / "session.jsonl"
    records = convert(json.loads(traj.read_text(encoding="utf-8")))
    session.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    lines = _cli(str(session), "--model", "anthropic:claude-sonnet-4-5", "--window", "6000")
    assert lines[-1]["format"] == "claude_code"
    reset = next(e for e in lines if e["event"] == "reset")
    assert reset["basis"] == "calibrated"
    assert "reproduce.py" in json.dumps(reset["handoff"]["files_modified"])


def test_a_malformed_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "broken.jsonl"
    bad.write_text('{"type": "user", "message": {"role": "user", "content": "hi"}}\n{oops\n')
    done = subprocess.run(
        [sys.executable, "-m", "agent_core", "replay", str(bad), "--model", "gpt-4o"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "broken.jsonl:2:" in done.stderr and "invalid JSON" in done.stderr


def _thread(requests: list[str]) -> list[dict]:
    """A thread of requests, each answered by long tool work that fills a small window."""
    messages: list[dict] = []
    for n, request in enumerate(requests):
        messages.append({"role": "user", "content": request})
        for step in range(3):
            call = f"c{n}_{step}"
            messages.append(
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {
                            "id": call,
                            "type": "function",
                            "function": {
                                "name": "write_file",
                                "arguments": json.dumps(
                                    {"path": f"src/m{n}_{step}.py", "content": "x = 1\n" * 200}
                                ),
                            },
                        }
                    ],
                }
            )
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": call,
                    "content": f"wrote src/m{n}_{step}.py\n" + "ok " * 400,
                }
            )
        messages.append({"role": "assistant", "content": f"Done with request {n}."})
    return messages


@pytest.mark.parametrize("writer", ["facts", "simulator"])
def test_after_ten_chained_resets_the_goal_constraints_and_every_request_remain(
    tmp_path: Path, writer: str
) -> None:
    from agent_core.handoff._user_text import same_request
    from agent_core.replay import ReplayReset
    from agent_core.replay._run import replay

    goal = "Build a CSV importer for invoices. Never use pandas; keep everything in importer/."
    requests = [goal] + [
        f"Request {n}: also support format {n} and add its test." for n in range(1, 14)
    ]
    path = tmp_path / "thread.json"
    path.write_text(json.dumps({"messages": _thread(requests)}), encoding="utf-8")
    resets = [
        e
        for e in replay(
            str(path), model="gpt-4o", window=6000, strategy="reset", handoff_model=writer
        )
        if isinstance(e, ReplayReset)
    ]
    assert len(resets) >= 10
    tenth = resets[9].handoff
    seen = [
        r
        for r in requests
        if any(
            r in m["content"]
            for m in _thread(requests)[: resets[9].message_index]
            if m["role"] == "user"
        )
    ]
    assert len(seen) >= 5
    assert tenth.goal == goal
    # The rule is in the goal, verbatim: it is not said a second time as a constraint.
    assert "Never use pandas; keep everything in importer/." in tenth.goal
    assert tenth.constraints == []
    # Each request is held once, verbatim, or named by its stored place in an "omitted"
    # line: never left out silently.
    kept = tenth.user_messages
    named = [m for m in kept if m.startswith("(omitted: ")]
    held = [r for r in seen if sum(same_request(k, r) for k in kept) == 1]
    assert named or len(held) == len(seen) - 1, (kept, seen)
    count = sum(int(m.split()[1]) for m in named)
    assert len(held) + count == len(seen) - 1, (kept, seen)  # the first is the goal
    assert tenth.session_number == 10
