"""Which marker offers Undo on the timeline (a pure function of the rows shown)."""

from __future__ import annotations

from chat_app.states.marker_rows import undo_target
from chat_app.states.rows import DividerPart, MarkerPart, TimelineRow


def _marker(key: str, event: str, edit: int = -1, session: int = 1) -> TimelineRow:
    return TimelineRow(
        key=key,
        kind="marker",
        role="event",
        session_number=session,
        marker=[MarkerPart(marker_event=event, edit=edit)],
    )


def _reply(key: str, session: int = 1) -> TimelineRow:
    return TimelineRow(key=key, kind="message", role="assistant", session_number=session)


def test_the_newest_compaction_or_mask_offers_undo() -> None:
    rows = [_marker("m0", "masking", 0), _reply("a"), _marker("m1", "compaction", 1)]
    assert undo_target(rows).key == "m1"
    assert undo_target(rows).blocked == ""


def test_a_reply_after_it_blocks_the_undo_with_the_reason() -> None:
    rows = [_marker("m0", "compaction", 0), _reply("a")]
    target = undo_target(rows)
    assert target.key == "m0"
    assert target.blocked == "The agent has answered since; it can no longer be undone."
    tool = TimelineRow(key="t", kind="tool", role="tool")
    assert undo_target([_marker("m0", "compaction", 0), tool]).blocked


def test_nothing_to_undo_after_an_undo_a_todo_summary_or_in_an_older_session() -> None:
    assert undo_target([_marker("m0", "compaction", 0), _marker("u", "undo", 0)]).key == ""
    # the todo summary is the newest edit now: the compaction before it is not the latest
    assert (
        undo_target([_marker("m0", "compaction", 0), _marker("m1", "todo_compressed", 1)]).key == ""
    )
    older = [
        _marker("m0", "compaction", 0, session=1),
        TimelineRow(key="d", kind="divider", session_number=2),
    ]
    assert undo_target(older).key == ""
    # a warning marker is no edit
    assert undo_target([_marker("m0", "masking", 0), _marker("w", "")]).key == "m0"
    assert undo_target([]).key == ""


def _divider(key: str, trigger: str, session: int) -> TimelineRow:
    return TimelineRow(
        key=key, kind="divider", session_number=session, divider=[DividerPart(trigger=trigger)]
    )


def test_a_handoff_divider_offers_undo_until_an_edit_or_a_reply_follows() -> None:
    manual = [_reply("a"), _divider("session-2", "manual", 2)]
    assert undo_target(manual) == undo_target(manual)  # pure
    assert undo_target(manual).key == "session-2" and not undo_target(manual).blocked
    assert undo_target([*manual, _reply("b", session=2)]).blocked
    assert undo_target([*manual, _marker("m", "masking", 0, session=2)]).key == "m"
    assert undo_target([_divider("session-2", "auto", 2)]).key == ""
    # the note of an undone handoff in the reopened session does not hide the older divider's
    # state: session 1's divider (start) is no /handoff
    reopened = [_divider("session-1", "start", 1), _marker("u", "undo", session=1)]
    assert undo_target(reopened).key == ""
