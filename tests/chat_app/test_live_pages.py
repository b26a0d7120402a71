"""The live pages: a finished step changes one small page, whatever the turn's length."""

from __future__ import annotations

from chat_app.services.presentation.views import TimelineItem
from chat_app.states.live_pages import PAGE_ROWS, PAGES, live_layout
from chat_app.states.rows import TimelineRow


def _rows(count: int) -> list[TimelineRow]:
    return [TimelineRow(key=f"r{n}", seq=n + 1) for n in range(count)]


def _changed(before, after) -> list[int]:
    return [
        index
        for index, (old, new) in enumerate(zip(before.slots, after.slots, strict=True))
        if old != new
    ]


def test_each_finished_row_changes_only_the_page_it_lands_on():
    for count in range(1, 3 * PAGES * PAGE_ROWS):
        before, after = live_layout(_rows(count - 1)), live_layout(_rows(count))
        changed = _changed(before, after)
        assert len(changed) == 1, count
        assert len(after.slots[changed[0]]) <= PAGE_ROWS


def test_the_newest_pages_are_shown_in_order_and_the_oldest_leave():
    rows = _rows(PAGES * PAGE_ROWS + 1)
    layout = live_layout(rows)
    assert layout.hidden == PAGE_ROWS
    assert layout.pages == list(range(1, PAGES + 1))
    shown = [row for page in layout.pages for row in layout.slots[page % PAGES]]
    assert shown == rows[PAGE_ROWS:]


def test_no_rows_no_pages():
    layout = live_layout([])
    assert layout.pages == [] and layout.hidden == 0 and all(not slot for slot in layout.slots)


def _chat_state():
    from reflex.state import State

    from chat_app.states.chat import ChatState

    root = State(_reflex_internal_init=True)
    return root.get_substate(ChatState.get_full_name().split(".")[1:])


def _sent(state) -> set[str]:
    """The vars Reflex would send for this change (backend vars stay on the server)."""
    names = {name for name in state.dirty_vars if not name.startswith("_")}
    state.dirty_vars.clear()
    return names


def test_a_long_turns_step_sends_one_page_never_the_window_or_the_run():
    state = _chat_state()
    state._set_rows(_rows(100))
    _sent(state)
    for n in range(150):
        state._append(
            TimelineItem(
                key=f"live-{n}",
                kind="tool",
                seq=1000 + n,
                session_number=1,
                role="assistant",
                tool_name="run_command",
                summary=f"step {n}",
            )
        )
        sent = _sent(state) - {"live_pages", "earliest_seq", "has_earlier"}
        pages = [name for name in sent if name.startswith("live_")]
        assert len(pages) == 1 and sent <= {*pages, "rows", "chips"}, (n, sent)
        # The settled rows leave once, when the run outgrows its pages, as an empty list.
        assert "rows" not in sent or list(state.rows) == []
    shown = [row for page in state.live_pages for row in getattr(state, f"live_{page % PAGES}")]
    assert len(shown) <= PAGES * PAGE_ROWS and shown[-1].key == "live-149"


def test_a_long_reply_streams_in_pieces_so_a_flush_sends_only_the_newest():
    from chat_app.states.stream_pieces import PIECE_CHARS

    state = _chat_state()
    words = [f"word{n} " for n in range(2000)]
    for start in range(0, len(words), 10):
        state._stream_add("".join(words[start : start + 10]))
        sent = _sent(state)
        assert sent <= {"streaming"} or (len(sent) == 2 and "streaming" in sent), sent
        assert len(state.streaming) < PIECE_CHARS
    text = "".join(getattr(state, f"stream_{n}") for n in range(state._stream_pieces))
    assert text + state.streaming == "".join(words)
    state._stream_clear()
    assert state.streaming == "" and state.stream_0 == ""


def test_a_row_updated_in_place_sends_its_page_with_the_change():
    state = _chat_state()
    call = {
        "key": "call-1",
        "kind": "tool",
        "seq": 7,
        "session_number": 1,
        "role": "assistant",
        "tool_name": "run_command",
        "summary": "pytest",
    }
    state._append(TimelineItem(**call))
    _sent(state)
    state._append(TimelineItem(**{**call, "tool_result": "3 passed"}))
    sent = _sent(state)
    assert [name for name in sent if name.startswith("live_")] == ["live_0"], sent
    assert state.live_0[0].tool[0].tool_result == "3 passed"
    assert state._live[0].tool[0].tool_result == "3 passed"


def test_plain_rows_are_copies_down_to_their_lists():
    from chat_app.states.rows import DividerPart, plain_rows

    state = _chat_state()
    state._set_rows([TimelineRow(key="d", kind="divider", divider=[DividerPart(header="S2")])])
    (copy,) = plain_rows(state.rows)
    assert type(copy) is TimelineRow  # not the state's change tracker
    copy.divider.append(DividerPart(header="another"))
    copy.anchor = "elsewhere"
    assert len(state.rows[0].divider) == 1 and state.rows[0].anchor != "elsewhere"
    assert type(copy.divider[0]) is DividerPart


def test_a_batch_of_rows_is_laid_out_once_and_shows_what_one_at_a_time_shows(monkeypatch):
    """A step's reply and tool results arrive in one batch: one layout for all of them, and
    the page ends as it would have row by row (a row updated in place included)."""

    def step(n: int) -> list[dict]:
        call = {
            "key": f"call-{n}",
            "kind": "tool",
            "seq": 1000 + 2 * n,
            "session_number": 1,
            "role": "assistant",
            "tool_name": "run_command",
            "summary": f"step {n}",
        }
        reply = {
            "key": f"reply-{n}",
            "kind": "message",
            "seq": 1001 + 2 * n,
            "session_number": 1,
            "role": "assistant",
            "content": f"done {n}",
        }
        return [call, {**call, "tool_result": f"{n} passed"}, reply]

    one_by_one, batched = _chat_state(), _chat_state()
    for state in (one_by_one, batched):
        state._set_rows(_rows(30))
    layouts = []
    set_live = type(batched)._set_live

    def counted(self, live):
        if self is batched:
            layouts.append(len(live))
        set_live(self, live)

    monkeypatch.setattr(type(batched), "_set_live", counted)
    for n in range(60):
        for row in step(n):
            one_by_one._append(TimelineItem(**row))
        batched._append(*(TimelineItem(**row) for row in step(n)))
        assert len(layouts) == n + 1  # one layout per batch
    for name in (
        "rows",
        "live_pages",
        "chips",
        "has_earlier",
        "earliest_seq",
        *(f"live_{page}" for page in range(PAGES)),
    ):
        assert getattr(batched, name) == getattr(one_by_one, name), name
    assert batched._live == one_by_one._live
