"""What the timeline shows of a reply that was cut off and of a tool call that failed."""

from __future__ import annotations

from agent_core import StoredMessage
from agent_core.storage import utcnow
from chat_app.services.presentation.timeline import RowFolder


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


def _regenerated_chat() -> tuple[list[StoredMessage], list[tuple[int, ...]]]:
    """A question, an earlier reply of two steps (a tool call, a marker between them, a
    final answer) and the reply that replaced it. Returns the rows and the earlier reply."""

    def call(seq: int, text: str) -> list[StoredMessage]:
        tool = {"id": f"c{seq}", "name": "write_file", "args": {"path": "a.py"}}
        return [
            row(seq, "assistant", text, tool_calls=[tool]),
            row(seq + 1, "tool", "ok", tool_call_id=f"c{seq}"),
        ]

    rows = [
        row(1, "user", "Plan it"),
        *call(2, "Writing a.py."),
        row(4, "event", "Compressed finished todo", meta={"event": "todo_compressed"}),
        *call(5, ""),
        row(7, "assistant", "Done."),
        *call(8, "Writing a.py again."),
        row(10, "assistant", "Done again."),
    ]
    return rows, [(2, 3, 5, 6, 7)]


def test_an_earlier_reply_is_dimmed_whole_and_offers_one_choice() -> None:
    from chat_app.services.presentation.timeline import items_from_rows

    rows, earlier = _regenerated_chat()
    items = items_from_rows(rows, [], earlier)
    shown = [(i.seq, i.kind, i.replaced, i.reply_end) for i in items]
    assert shown == [
        (1, "message", False, False),
        (2, "message", True, False),
        (2, "tool", True, False),
        (4, "marker", True, False),  # a marker inside the reply is part of it
        (5, "tool", True, False),
        (7, "message", True, True),  # "Use this reply" once, on its last row
        (8, "message", False, False),
        (8, "tool", False, False),
        (10, "message", False, False),
    ]


def test_an_earlier_reply_whose_end_is_not_loaded_offers_no_choice_yet() -> None:
    from chat_app.services.presentation.timeline import items_from_rows

    rows, earlier = _regenerated_chat()
    items = items_from_rows(rows[:4], [], earlier)  # a window ending inside the reply
    assert [i.replaced for i in items if i.seq > 1] == [True, True, True]
    assert not any(i.reply_end for i in items)


def test_a_live_reply_is_dimmed_whole_though_its_markers_have_no_seq_yet() -> None:
    from chat_app.services.presentation.timeline import earlier_reply_marks, items_from_rows
    from chat_app.states.rows import timeline_row

    rows, earlier = _regenerated_chat()
    live = [timeline_row(i) for i in items_from_rows(rows, [])]
    live[3].seq = 0  # the marker as a run shows it: keyed by its stored row, no seq
    marks = earlier_reply_marks(live, earlier)
    assert [dimmed for dimmed, _ in marks] == [
        False,
        True,
        True,
        True,
        True,
        True,
        False,
        False,
        False,
    ]
    assert [end for _, end in marks].count(True) == 1 and marks[5] == (True, True)
