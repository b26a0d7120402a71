"""The UI's view shaping (chat_app.states.rows): what the timeline, chips and meter show."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from chat_app.services.presentation.views import MeterView, SessionChip, TimelineItem
from chat_app.states.chat import _thread_id_from_path
from chat_app.states.rows import (
    ChipRow,
    FileRow,
    TimelineRow,
    chip_row,
    meter_bar,
    relative_time,
    resetting_row,
    timeline_row,
    upsert,
    with_anchors,
    with_new_session,
)

NOW = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)


def _divider(number: int, **handoff) -> TimelineItem:
    return TimelineItem(
        key=f"session-{number}",
        kind="divider",
        seq=10 * number,
        session_number=number,
        trigger="auto",
        utilization=0.823,
        model="claude-sonnet-4-5",
        handoff={"current_state_summary": "Parser done", **handoff},
        handoff_markdown="# Handoff",
        handoff_filename=f"HANDOFF-{number - 1}.md",
    )


def _divider_of(item: TimelineItem):
    (divider,) = timeline_row(item).divider  # a divider row has exactly one
    return divider


def _card(item: TimelineItem):
    (card,) = _divider_of(item).card  # a divider with a handoff has exactly one card
    return card


def test_a_divider_row_reads_like_the_design():
    divider = _divider_of(_divider(2, completed_work=["Parser"], key_decisions=["Use TOML"]))
    assert divider.header.startswith("Session 2 started")
    assert "auto reset at 82%" in divider.header
    assert divider.header.endswith("claude-sonnet-4-5")
    assert divider.trigger == "auto"
    (card,) = divider.card
    assert card.state_summary == "0 files changed; no check failing. Parser done"
    assert card.completed_work == ["Parser"] and card.key_decisions == ["Use TOML"]
    assert card.handoff_filename == "HANDOFF-1.md"


def test_a_row_carries_only_its_own_kinds_fields():
    # The fields of the other kinds stay out of the page (sent empty with every row, they
    # were most of a long thread's page-load payload).
    message = timeline_row(
        TimelineItem(key="m", kind="message", role="user", content="hi", created_at=NOW)
    )
    assert (message.divider, message.tool, message.marker) == ([], [], [])
    assert message.time_title and message.time_label
    first = _divider_of(
        TimelineItem(
            key="session-1", kind="divider", session_number=1, trigger="start", created_at=NOW
        )
    )
    assert first.card == [] and first.created_iso == NOW.isoformat()
    (placeholder,) = resetting_row(1).divider
    assert placeholder.card == []
    marker = timeline_row(
        TimelineItem(
            key="k", kind="marker", role="event", content="Masked", marker_event="masking", edit=2
        )
    )
    assert marker.marker[0].marker_event == "masking" and marker.marker[0].edit == 2
    assert (marker.tool, marker.divider) == ([], [])


def test_a_tool_row_carries_its_call_and_no_time_it_does_not_show():
    row = timeline_row(
        TimelineItem(
            key="c",
            kind="tool",
            role="tool",
            tool_name="run_command",
            summary="Ran `pytest`",
            tool_result="3 passed",
            tool_failed=True,
            simulated=True,
            created_at=NOW,
        )
    )
    (call,) = row.tool
    assert (call.tool_name, call.summary, call.tool_result) == (
        "run_command",
        "Ran `pytest`",
        "3 passed",
    )
    assert call.tool_failed and call.simulated
    assert row.time_title == row.time_label == "" and row.divider == []


def test_the_cards_state_is_counted_from_the_lists_it_holds():
    card = _card(
        _divider(
            2,
            current_state_summary="All 5 todos are done; 0 files changed this session; only the "
            "final report is left. The parser handles quoted fields.",
            completed_work=[f"Completed todo: step {n}" for n in range(1, 5)],
            open_todos=[{"content": "step 5", "status": "in_progress"}],
            files_modified=[{"path": f"src/m{n}.py"} for n in range(5)],
            errors_and_fixes=["Still failing: `pytest -q` (exit 1)"],
            user_messages=["[2:3 open] also handle tabs"],
        )
    )
    assert card.state_summary == (
        "4 of 5 todos done; 5 files changed; 1 check still failing; 1 request open. "
        "The parser handles quoted fields."
    )


def test_the_card_shows_the_v2_handoff_and_its_check_in_one_line():
    row = _card(
        _divider(
            2,
            goal="Build a CSV importer",
            constraints=["Never use pandas."],
            user_messages=["Build a CSV importer", "also tabs"],
            next_step="write tests",
            errors_and_fixes=["`pytest` failed (exit 1); passed after the changes that followed"],
            checks=[
                {"kind": "files", "covered": 17, "total": 17},
                {"kind": "todos", "covered": 4, "total": 4},
                {"kind": "commits", "covered": 0, "total": 0},
            ],
        )
    )
    assert (row.goal, row.next_step) == ("Build a CSV importer", "write tests")
    assert row.constraints == ["Never use pandas."] and len(row.user_messages) == 2
    assert len(row.errors_and_fixes) == 1
    assert row.checks == "files 17/17 · todos 4/4"  # kinds with nothing to check left out


def test_the_card_names_what_the_check_found_missing_and_where_the_model_was_corrected():
    row = _card(
        _divider(
            3,
            current_state_summary="",
            next_step="",
            in_progress=["Todo (3 of 5): Handle quoted fields"],
            disagreements=[
                "In progress: the todo list has “Handle quoted fields” under way; the "
                "model did not name it"
            ],
            checks=[
                {"kind": "files", "covered": 16, "total": 17, "missing": ["src/b.py"]},
                {"kind": "requests", "covered": 9, "total": 9, "referenced": 3},
            ],
        )
    )
    assert row.checks == "files 16/17 (missing: src/b.py) · requests 9/9 (3 by reference)"
    assert row.disagreements[0].startswith("In progress: the todo list has")
    # With no state summary, the closed card's line says what was under way.
    assert row.preview == "Todo (3 of 5): Handle quoted fields"


def test_a_v1_handoff_shows_no_v2_parts():
    row = _card(_divider(2, completed_work=["Parser"]))
    assert (row.goal, row.next_step, row.checks, row.user_messages) == ("", "", "", [])


def test_files_modified_may_be_dicts_or_plain_paths():
    row = _card(_divider(2, files_modified=[{"path": "a.py", "verified": True}, "b.py", ""]))
    assert row.files_modified == [FileRow("a.py", True), FileRow("b.py", False)]


def test_a_divider_without_handoff_yet_says_it_is_resetting():
    assert resetting_row(1).divider[0].header == "Resetting context…"
    assert resetting_row(1).session_number == 2


def test_a_delivered_message_replaces_its_queued_row():
    queued = TimelineRow(key="pending-1", role="user", content="also this", queued=True)
    other = TimelineRow(key="m1", role="assistant", content="working")
    delivered = TimelineRow(key="m2", role="user", content="also this")
    rows = upsert([queued, other], delivered)
    assert [r.key for r in rows] == ["m1", "m2"]
    assert not any(r.queued for r in rows)


def test_an_item_with_a_known_key_is_replaced_in_place():
    rows = upsert([TimelineRow(key="a"), TimelineRow(key="b")], TimelineRow(key="a", content="new"))
    assert [(r.key, r.content) for r in rows] == [("a", "new"), ("b", "")]


def test_anchors_go_to_session_starts_and_mark_chips_loaded():
    chips = [
        ChipRow(1, "Session 1", "session-1"),
        ChipRow(2, "Session 2", "session-2"),
        ChipRow(3, "Session 3", "session-3"),
    ]
    rows = [
        TimelineRow(key="m1", session_number=1),
        TimelineRow(key="m2", session_number=1),
        timeline_row(_divider(2)),
        TimelineRow(key="m3", session_number=2),
    ]
    rows, chips = with_anchors(rows, chips, from_start=True)
    assert [r.anchor for r in rows] == ["session-1", "", "session-2", ""]
    assert [c.loaded for c in chips] == [True, True, False]


def test_session_one_has_no_anchor_when_its_start_is_not_loaded():
    chips = [ChipRow(1, "Session 1", "session-1")]
    rows, chips = with_anchors([TimelineRow(key="m9", session_number=1)], chips, from_start=False)
    assert rows[0].anchor == "" and not chips[0].loaded


def test_a_live_reset_adds_the_new_chip_and_any_missing_earlier_ones():
    chips = with_new_session(
        [],
        chip_row(
            SessionChip(number=3, label="Session 3 ← current", anchor="session-3", current=True)
        ),
    )
    assert [(c.number, c.label, c.current) for c in chips] == [
        (1, "Session 1", False),
        (2, "Session 2", False),
        (3, "Session 3", True),
    ]


def test_the_meter_marks_approximate_counts_and_draws_its_thresholds():
    bar = meter_bar(
        MeterView(
            tokens=4100,
            window=5000,
            fraction=0.82,
            basis="approximate",
            compact_threshold=0.5,
            reset_threshold=0.8,
        )
    )
    assert bar.label == "~82%" and bar.level == "high"
    assert "4,100 of 5,000 tokens" in bar.title
    assert (bar.compact_percent, bar.reset_percent) == (50, 80)
    later = meter_bar(MeterView(tokens=1000, window=5000, fraction=0.2, reset_threshold=0.7))
    assert later.label == "20%" and later.reset_percent == 70 and later.level == "ok"
    # A "compact" strategy never resets; "auto" resolved to reset never compacts.
    compacting = meter_bar(MeterView(strategy="compact", effective_strategy="compact"))
    assert (compacting.show_compact, compacting.show_reset) == (True, False)
    assert "reset at" not in compacting.title
    assert (later.show_compact, later.show_reset) == (False, True)


def test_relative_times():
    assert relative_time(NOW - timedelta(seconds=20), NOW) == "just now"
    assert relative_time(NOW - timedelta(minutes=3), NOW) == "3 min ago"
    assert relative_time((NOW - timedelta(days=2)).isoformat(), NOW) == "2 days ago"
    assert relative_time(None, NOW) == ""


def test_the_thread_id_comes_from_the_chat_route():
    assert _thread_id_from_path("/t/abc123") == "abc123"
    assert _thread_id_from_path("/") == ""


def test_the_first_session_divider_names_no_reset():
    first = TimelineItem(key="session-1", kind="divider", session_number=1, trigger="start")
    assert _divider_of(first).header == "Session 1 started"


def test_the_handoff_download_is_the_markdown_file_itself():
    import base64

    row = _card(_divider(2))
    prefix = "data:text/markdown;charset=utf-8;base64,"
    assert row.handoff_markdown.startswith(prefix)
    assert base64.b64decode(row.handoff_markdown[len(prefix) :]).decode() == "# Handoff"


def test_a_focused_handoff_names_its_focus_on_the_divider_and_the_card():
    row = _divider_of(_divider(3, trigger="manual", focus="the  CSV\nparser"))
    assert "focus: the CSV parser" in row.header
    assert row.card[0].focus == "the  CSV\nparser"
    plain = _divider_of(_divider(3))
    assert "focus" not in plain.header and plain.card[0].focus == ""
