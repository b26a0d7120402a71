"""Every real session in ``shared/eval/real-sessions`` imports: the right format without a
hint, messages, and its tool calls as calls with their results after them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from agent_core.errors import TranscriptFormatError
from agent_core.transcripts import load_transcript
from tests.shared_data import eval_path

# The folder an agent's files are in, and the format each must be detected as.
_FORMAT_BY_FOLDER = {
    "claudecode": "claude_code",
    "codex": "codex",
    "pi": "pi",
    "pi-mono": "pi",
    "opencode": "opencode",
    "cline": "cline",
}
_CODEX_CALLS = {"function_call", "custom_tool_call", "local_shell_call"}


def _session_files() -> list[Path]:
    root = eval_path("real-sessions")
    return sorted(
        p for p in root.rglob("*.json*") if p.is_file() and not p.name.endswith("_metadata.json")
    )


def _raw_calls(value: object) -> int:
    """Tool calls in the raw records, counted by each agent's own block names."""
    if isinstance(value, list):
        return sum(_raw_calls(v) for v in value)
    if not isinstance(value, dict):
        return 0
    kind = value.get("type")
    own = int(
        (kind == "tool_use" and "name" in value)
        or (kind == "toolCall" and "name" in value)
        or (kind == "tool" and "callID" in value)
        or kind in _CODEX_CALLS
    )
    return own + sum(_raw_calls(v) for v in value.values())


def _raw(path: Path) -> object:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return json.loads(text)


def test_the_folder_holds_every_agent() -> None:
    folders = {p.parent.name for p in _session_files()}
    assert folders == set(_FORMAT_BY_FOLDER)


@pytest.mark.parametrize("path", _session_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_real_session_imports_with_its_tool_calls(path: Path) -> None:
    transcript = load_transcript(path)
    assert transcript.format == _FORMAT_BY_FOLDER[path.parent.name]
    assert any(isinstance(m, HumanMessage) for m in transcript.messages)
    assert any(isinstance(m, AIMessage) for m in transcript.messages)
    calls = [c for m in transcript.messages if isinstance(m, AIMessage) for c in m.tool_calls]
    raw = _raw_calls(_raw(path))
    if "entries of branches the session left" in transcript.skipped_note():
        assert 0 < len(calls) < raw  # the calls of the branch left behind are not the session's
    else:
        assert len(calls) == raw
    seen: set[str] = set()
    for message in transcript.messages:
        if isinstance(message, AIMessage):
            seen |= {str(c["id"]) for c in message.tool_calls}
        elif isinstance(message, ToolMessage):
            assert message.tool_call_id in seen  # every result answers a call made before it


def test_pi_compactions_are_the_agents_own_cuts() -> None:
    path = eval_path("real-sessions", "pi-mono", "before-compaction.jsonl")
    lines = path.read_text(encoding="utf-8").splitlines()
    raw = [json.loads(lines[i]) for i in (359, 628)]
    transcript = load_transcript(path)
    assert [c.summary for c in transcript.compactions] == [r["summary"] for r in raw]
    assert [c.tokens_before for c in transcript.compactions] == [175_004, 185_014]
    assert {c.agent for c in transcript.compactions} == {"pi"}
    first, second = (c.message_index for c in transcript.compactions)
    assert 0 < first < second < len(transcript.messages)


def test_pis_summary_covers_what_came_before_the_entry_it_kept_whole() -> None:
    """pi keeps its latest turns whole beside the summary (version 1 names the first kept
    entry by its index among the file's entries): the summary covers only what came before
    it, and pi's context after the compaction holds the kept messages too."""
    path = eval_path("real-sessions", "pi-mono", "before-compaction.jsonl")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    transcript = load_transcript(path)
    for row, compaction in zip(
        [r for r in rows if r.get("type") == "compaction"], transcript.compactions, strict=True
    ):
        kept = row["firstKeptEntryIndex"]
        before = sum(r.get("type") == "message" for r in rows[:kept])
        summaries = sum(
            bool(m.additional_kwargs.get("compact_summary"))
            for m in transcript.messages[: compaction.summarized_until]
        )
        assert compaction.summarized_until == before + summaries
        assert compaction.summarized_until < compaction.message_index
        # The first kept message is the first message of the kept entry.
        kept_text = rows[kept]["message"]["content"]
        kept_text = kept_text if isinstance(kept_text, str) else kept_text[0].get("text", "")
        assert (
            transcript.messages[compaction.summarized_until].content.startswith(kept_text[:40])
            or not kept_text
        )
    # The next call's prompt holds the summary and the kept messages.
    first = transcript.compactions[0]
    after = next(u for u in transcript.usage if u.message_index > first.message_index)
    assert after.prompt_start == first.summarized_until


def test_a_pi_file_of_version_2_names_the_kept_entry_by_its_id(tmp_path) -> None:
    def message(entry_id: str, parent: str | None, role: str, text: str) -> dict:
        return {
            "type": "message",
            "id": entry_id,
            "parentId": parent,
            "timestamp": "2025-01-01T00:00:00Z",
            "message": {"role": role, "content": [{"type": "text", "text": text}]},
        }

    entries = [
        {"type": "session", "version": 2, "id": "s", "cwd": "/w", "timestamp": "2025-01-01"},
        message("a", None, "user", "first request"),
        message("b", "a", "assistant", "first answer"),
        message("c", "b", "user", "second request"),
        message("d", "c", "assistant", "second answer"),
        {
            "type": "compaction",
            "id": "e",
            "parentId": "d",
            "summary": "They asked twice.",
            "firstKeptEntryId": "c",
            "tokensBefore": 900,
        },
        message("f", "e", "user", "third request"),
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in entries) + "\n", encoding="utf-8")
    transcript = load_transcript(path)
    (compaction,) = transcript.compactions
    assert transcript.messages[compaction.summarized_until].content == "second request"
    assert compaction.message_index == 4


def test_clines_metadata_file_is_named_for_what_it_is() -> None:
    path = eval_path("real-sessions", "agentlogs", "cline", "crud_metadata.json")
    with pytest.raises(TranscriptFormatError, match="cline task's metadata file") as caught:
        load_transcript(path)
    assert "api_conversation_history.json" in str(caught.value)


def test_a_cline_conversation_reads_its_metadata_from_beside_it() -> None:
    path = eval_path("real-sessions", "agentlogs", "cline", "crud.json")
    task = load_transcript(path).metadata["cline_task"]
    assert task["file"] == "crud_metadata.json"
    assert "README.md" in task["files_in_context"]
    assert task["models"] == ["claude-opus-4-6"]
