"""What the timeline shows of a reply that was cut off and of a tool call that failed."""

from __future__ import annotations

from agent_core.records import StoredMessage, utcnow
from chat_app.services.timeline import RowFolder


def row(seq: int, role: str, content: str = "", **fields) -> StoredMessage:
    return StoredMessage(
        id=f"r{seq}",
        thread_id="t",
        session_id="s",
        seq=seq,
        created_at=utcnow(),
        role=role,
        content=content,
        **fields,
    )


def test_a_reply_cut_off_mid_stream_is_flagged_and_a_whole_one_is_not() -> None:
    folder = RowFolder({"s": 1})
    [cut] = folder.add(row(1, "assistant", "Half an", meta={"incomplete": True}))
    [whole] = folder.add(row(2, "assistant", "A whole answer."))
    assert (cut.content, cut.incomplete) == ("Half an", True)
    assert whole.incomplete is False


def test_a_tool_result_stored_as_an_error_is_shown_as_failed() -> None:
    folder = RowFolder({"s": 1})
    call = {"id": "c1", "name": "deploy", "args": {}}
    folder.add(row(1, "assistant", tool_calls=[call]))
    # langgraph's text for an unknown tool starts with "Error:", not Baton's "error:".
    [item] = folder.add(
        row(
            2,
            "tool",
            "Error: deploy is not a valid tool, try one of [ls].",
            tool_call_id="c1",
            name="deploy",
            meta={"status": "error"},
        )
    )
    assert item.tool_failed is True


def _shell_row(model: str, name: str = "run_command"):
    folder = RowFolder({"s": 1})
    call = {"id": "c1", "name": name, "args": {"command": "pytest"}}
    folder.add(row(1, "assistant", tool_calls=[call], model=model))
    [item] = folder.add(row(2, "tool", "1 passed\n[exit status 0]", tool_call_id="c1", name=name))
    return item


def test_the_simulators_shell_is_labelled_simulated_and_a_sandboxed_run_is_not() -> None:
    assert _shell_row("simulator").simulated is True
    assert _shell_row("openai:gpt-4o").simulated is False
    # The simulator's file tools write real workspace files: nothing made up to label.
    assert _shell_row("simulator", name="write_file").simulated is False
