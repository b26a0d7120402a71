"""The chat's reset control through the services on SQLite: the notice's status read from the
store, "Not yet", the review settled with edits, and the context chart's runs."""

from __future__ import annotations

import asyncio

import pytest

from agent_core import NewMessage, SessionRecord, build_context
from agent_core.events import ResetFailed, TokenEvent
from chat_app.root import root
from chat_app.services.conversation.runs.context_chart import ChartSeries, merge_runs, thread_run
from chat_app.services.presentation.ui_events import (
    ItemShown,
    MeterShown,
    RunChanged,
    SessionOpened,
)
from chat_app.services.presentation.views import MeterView, SessionChip, TimelineItem
from chat_app.settings import Settings
from tests.chat_app.wire import drained


def _reply(fraction: float, tokens: int = 100) -> NewMessage:
    return NewMessage(
        role="assistant",
        content="ok",
        meta={"context": {"fraction": fraction, "tokens": tokens, "window": 6000}},
    )


@pytest.fixture
def settings(db_url: str) -> Settings:
    # The simulator answers at once: the runs here are about order, not pace.
    return Settings(db_url=db_url, sim_delay=0)


@pytest.fixture
def chat(monkeypatch, app):
    from chat_app.services.conversation.threads import chats as threads

    thread = threads.create_thread(app, "owner-a").id
    yield root().store, thread


def test_the_status_is_read_back_from_the_store_and_not_yet_stays_armed(chat, app) -> None:
    import asyncio

    from chat_app.services.conversation.runs import reset_control

    store, thread = chat
    session = store.current_session(thread)
    store.append(
        thread, session.id, [NewMessage(role="user", content="go"), _reply(0.3), _reply(0.75)]
    )

    found = reset_control.reset_status(app, "owner-a", thread)
    # The simulator resets at 80%, so the default warning starts at 70%.
    assert (found.warn, found.trigger, found.action, found.deferred) == (0.7, 0.8, "reset", False)
    assert (
        reset_control.reset_status(app, "owner-b", thread).warn == 0.0
    )  # not theirs: nothing shown

    assert asyncio.run(reset_control.defer_reset(app, "owner-a", thread)) is True
    # Armed until an automatic step uses it, in every tab and after a reload.
    assert reset_control.reset_status(app, "owner-a", thread).deferred is True
    assert asyncio.run(reset_control.defer_reset(app, "owner-a", thread)) is False
    assert store.messages(session.id)[-1].meta == {"event": "defer"}
    store.append(thread, session.id, [NewMessage(role="event", meta={"event": "deferred"})])
    assert reset_control.reset_status(app, "owner-a", thread).deferred is False


def test_a_review_is_settled_with_the_edited_fields(chat, app) -> None:
    import asyncio

    from agent_core import HandoffArtifact
    from agent_core.runtime import review_opening
    from chat_app.services.conversation.runs import reset_control

    store, thread = chat
    first = store.current_session(thread)
    store.append(thread, first.id, [NewMessage(role="user", content="go"), _reply(0.5)])
    artifact = HandoffArtifact(
        session_number=1,
        trigger="manual",
        utilization=0.5,
        model="simulator",
        goal="Parse invoices",
        next_step="Write tests",
    )
    store.commit_reset(
        thread,
        old_session_id=first.id,
        trigger="manual",
        utilization=0.5,
        model="simulator",
        handoff=artifact.model_dump(mode="json"),
        handoff_path="HANDOFF-1.md",
        handoff_markdown=artifact.to_markdown(),
        context=[
            NewMessage(
                role="handoff",
                content=f"<handoff-context>\n{artifact.to_markdown()}</handoff-context>\n\nGo on.",
            ),
            review_opening(),
        ],
    )
    waiting = reset_control.reset_status(app, "owner-a", thread)
    assert waiting.review is not None and waiting.review_session == 2
    assert waiting.review["next_step"] == "Write tests"

    with pytest.raises(reset_control.ReviewRefused, match="cannot run") as refused:
        asyncio.run(reset_control.settle_review(app, "owner-b", thread, {}))
    assert refused.value.code == "cannot_run"
    note = asyncio.run(
        _settled(
            app, thread, {"next_step": "Write the EDITED tests", "constraints": "No pandas\n\n"}
        )
    )
    assert note == "Handoff confirmed with your edits"
    session = store.current_session(thread)
    seen = "\n".join(str(m.content) for m in build_context(store, session))
    assert "Write the EDITED tests" in seen and "- No pandas" in seen and "Go on." in seen
    assert reset_control.reset_status(app, "owner-a", thread).review is None


async def _settled(app, thread: str, form: dict) -> str:
    """Settle as the page does, then answer; the review's note, once the run answering
    what waits after it has ended too."""
    from chat_app.services.conversation.runs import chat as chat_service
    from chat_app.services.conversation.runs import reset_control

    note = await reset_control.settle_review(app, "owner-a", thread, form)
    reset_control.answer_after_review(app, "owner-a", thread)
    await asyncio.gather(*chat_service._detached)
    return note


def _waiting_review(store, thread: str) -> None:
    from agent_core import HandoffArtifact
    from agent_core.runtime import review_opening

    first = store.current_session(thread)
    store.append(thread, first.id, [NewMessage(role="user", content="go"), _reply(0.5)])
    artifact = HandoffArtifact(
        session_number=1,
        trigger="manual",
        utilization=0.5,
        model="simulator",
        goal="Parse invoices",
        next_step="Write tests",
    )
    store.commit_reset(
        thread,
        old_session_id=first.id,
        trigger="manual",
        utilization=0.5,
        model="simulator",
        handoff=artifact.model_dump(mode="json"),
        handoff_path="HANDOFF-1.md",
        handoff_markdown=artifact.to_markdown(),
        context=[
            NewMessage(
                role="handoff",
                content=f"<handoff-context>\n{artifact.to_markdown()}</handoff-context>\n\nGo on.",
            ),
            review_opening(),
        ],
    )


@pytest.mark.parametrize(
    ("confirm_after", "send_still_open"),
    [(0.0, False), (0.002, False), (0.02, False), (0.2, False), (0.0, True)],
)
def test_a_message_sent_during_the_review_does_not_block_confirm_and_is_answered_once(
    chat, monkeypatch, confirm_after, send_still_open, app
) -> None:
    """The send's run holds the thread while Confirm is pressed (or has just let it go, or
    is long over, or its stream from the turn process is still open): Confirm goes through,
    and the message is answered exactly once, after the confirmed handoff."""
    from chat_app.services.conversation.runs import chat as chat_service

    if send_still_open:
        monkeypatch.setattr(app.turn_process, "is_busy", lambda thread_id: True)
    store, thread = chat
    _waiting_review(store, thread)

    async def send_and_confirm() -> str:
        async def send() -> list[dict]:
            stream = chat_service.send_message(app, "owner-a", thread, "and the dates too", "t.1.a")
            return await drained(stream)

        sending = asyncio.create_task(send())
        await asyncio.sleep(confirm_after)
        note = await _settled(app, thread, {})
        await sending
        await asyncio.gather(*chat_service._detached)
        return note

    assert asyncio.run(send_and_confirm()) == "Handoff confirmed as written"
    rows = [row for s in store.sessions(thread) for row in store.messages(s.id)]
    asked = [r for r in rows if r.role == "user" and r.content == "and the dates too"]
    assert len(asked) == 1
    review = [r for r in rows if r.meta.get("event") == "handoff_review"]
    assert [r.meta["status"] for r in review] == ["pending", "confirmed"]
    assert review[-1].seq < asked[0].seq  # delivered after the confirmed handoff
    assert [r.role for r in rows if r.seq > asked[0].seq][:1] == ["assistant"]
    assert store.pending(thread) == []


def test_edited_artifact_reads_lines_and_refuses_what_cannot_be_an_artifact() -> None:
    from chat_app.services.conversation.runs.reset_control import ReviewRefused, edited_artifact

    original = {
        "session_number": 1,
        "trigger": "auto",
        "utilization": 0.8,
        "model": "m",
        "remaining_tasks": ["a"],
    }
    edited = edited_artifact(original, {"remaining_tasks": " b \n\nc", "goal": " G "})
    assert edited.remaining_tasks == ["b", "c"] and edited.goal == "G"
    with pytest.raises(ReviewRefused):
        edited_artifact({**original, "session_number": 0}, {})


def test_a_run_marks_resets_compactions_and_masks_between_its_calls() -> None:
    from datetime import UTC, datetime

    from agent_core import StoredMessage

    now = datetime.now(UTC)
    sessions = [SessionRecord(id=f"s{n}", thread_id="t", number=n, started_at=now) for n in (1, 2)]

    def stored(session: str, seq: int, row: NewMessage) -> StoredMessage:
        return StoredMessage(
            **row.model_dump(),
            id=f"m{seq}",
            thread_id="t",
            session_id=session,
            seq=seq,
            created_at=now,
        )

    rows = {
        "s1": [
            stored("s1", 1, _reply(0.2, 1200)),
            stored("s1", 2, _reply(0.5)),
            stored("s1", 3, NewMessage(role="event", meta={"event": "masking"})),
            stored("s1", 4, _reply(0.4)),
            stored("s1", 5, NewMessage(role="event", meta={"event": "compaction"})),
        ],
        "s2": [stored("s2", 6, _reply(0.1))],
    }
    run = thread_run(sessions, rows, ChartSeries(key="chat", label="This chat", color="#000"))
    assert run.percents == [20.0, 50.0, 40.0, 10.0]
    assert [(m.kind, m.call, m.after) for m in run.markers] == [
        ("mask", 2.5, 2),
        ("compaction", 3.5, 3),
        ("reset", 3.5, 3),
    ]
    replay = run.model_copy(
        update={
            "series": ChartSeries(key="replay", label="Replay", color="#f00"),
            "percents": [30.0],
            "tokens": [1],
            "sessions": [1],
        }
    )
    points = merge_runs([run, replay])
    assert points[0] == {
        "call": 1,
        "chat": 20.0,
        "chat_tokens": 1200,
        "chat_session": 1,
        "replay": 30.0,
        "replay_tokens": 1,
        "replay_session": 1,
    }
    assert points[3] == {"call": 4, "chat": 10.0, "chat_tokens": 100, "chat_session": 2}


def test_the_chart_says_what_each_handoff_and_summary_call_cost() -> None:
    from datetime import UTC, datetime

    from agent_core import StoredMessage

    now = datetime.now(UTC)
    sessions = [SessionRecord(id=f"s{n}", thread_id="t", number=n, started_at=now) for n in (1, 2)]

    def stored(session: str, seq: int, row: NewMessage) -> StoredMessage:
        return StoredMessage(
            **row.model_dump(),
            id=f"m{seq}",
            thread_id="t",
            session_id=session,
            seq=seq,
            created_at=now,
        )

    def spent(given: int, written: int) -> dict:
        return {
            "usage": {
                "input_tokens": given,
                "output_tokens": written,
                "total_tokens": given + written,
            }
        }

    rows = {
        "s1": [
            stored("s1", 1, _reply(0.6)),
            stored(
                "s1",
                2,
                NewMessage(role="event", meta={"event": "compaction_discarded", **spent(300, 410)}),
            ),
            stored("s1", 3, _reply(0.62)),
            stored(
                "s1", 4, NewMessage(role="event", meta={"event": "compaction", **spent(2_900, 120)})
            ),
        ],
        "s2": [
            stored(
                "s2",
                5,
                NewMessage(
                    role="handoff",
                    content="h",
                    meta={"handoff_source": "model", **spent(12_345, 890)},
                ),
            ),
            stored("s2", 6, _reply(0.1)),
        ],
    }
    run = thread_run(sessions, rows, ChartSeries(key="chat", label="This chat", color="#000"))
    assert [(m.kind, m.input_tokens, m.output_tokens) for m in run.markers] == [
        ("discarded", 300, 410),
        ("compaction", 2_900, 120),
        ("reset", 12_345, 890),
    ]
    assert run.markers[2].cost == "handoff call: 12,345 in · 890 out tokens"
    assert run.markers[1].cost == "summary call: 2,900 in · 120 out tokens"
    assert "not smaller" in run.markers[0].label
    # A session from before the tokens were recorded says nothing rather than zero.
    older = thread_run(
        sessions,
        {"s2": [stored("s2", 7, NewMessage(role="handoff"))]},
        ChartSeries(key="chat", label="This chat", color="#000"),
    )
    assert older.markers[0].cost == ""


def test_compact_now_through_the_service_says_what_happened(chat, app) -> None:
    import asyncio

    from chat_app.services.conversation.runs import reset_control

    store, thread = chat
    session = store.current_session(thread)
    store.append(thread, session.id, [NewMessage(role="user", content="go"), _reply(0.75)])
    # A short session: everything is within the recent part the compaction keeps.
    assert asyncio.run(reset_control.compact_now(app, "owner-a", thread)).startswith(
        "Nothing to compact"
    )
    assert (
        asyncio.run(reset_control.compact_now(app, "owner-b", thread))
        == "This chat cannot run right now."
    )
    assert not store.context_edits(session.id)


def test_a_message_queued_while_compact_now_ran_is_answered_after_it(
    chat, monkeypatch, app
) -> None:
    import asyncio

    from chat_app.services.conversation.runs import chat as chat_service
    from chat_app.services.conversation.runs import reset_control

    store, thread = chat
    session = store.current_session(thread)
    store.append(thread, session.id, [NewMessage(role="user", content="go"), _reply(0.75)])
    store.enqueue_pending(thread, "and the dates too")  # sent while it held the thread

    async def compact_then_answer() -> str:
        said = await reset_control.compact_now(app, "owner-a", thread)
        await asyncio.gather(*chat_service._detached)
        return said

    assert asyncio.run(compact_then_answer()).startswith("Nothing to compact")
    rows = store.messages(store.current_session(thread).id)
    asked = [r for r in rows if r.role == "user" and r.content == "and the dates too"]
    assert len(asked) == 1
    assert [r.role for r in rows if r.seq > asked[0].seq][:1] == ["assistant"]
    assert store.pending(thread) == []


def test_a_tab_rereads_the_status_only_after_events_that_can_change_it() -> None:
    """Replies and utilization leave the status as it is (the notice follows the meter,
    which each tab updates itself); a marker, a divider, a reset and a run's end re-read."""
    from chat_app.states.reset_control import StatusChanges

    def item(**fields) -> ItemShown:
        return ItemShown(item=TimelineItem(key="k", **fields))

    changes = StatusChanges()
    assert not changes(item(role="assistant", kind="message"))
    assert not changes(MeterShown(meter=MeterView(tokens=900, window=1000, fraction=0.9)))
    assert not changes(item(role="user", kind="message"))
    assert not changes(TokenEvent(text="x"))
    assert changes(item(role="event", kind="marker"))
    assert changes(item(role="handoff", kind="divider"))
    assert changes(
        SessionOpened(
            session_number=2,
            divider=TimelineItem(key="d2", kind="divider", session_number=2),
            chip=SessionChip(number=2, label="Session 2", anchor="session-2", current=True),
        )
    )
    assert changes(ResetFailed(reason="no model"))
    assert changes(RunChanged(running=False))


def test_a_settled_review_is_seen_on_the_live_channel_before_the_status_is_read() -> None:
    """The settling marker (with its context edit's position) lets the form leave at once;
    the pending review's own marker, which opens the session, does not."""
    from chat_app.states.reset_control import StatusChanges

    changes = StatusChanges()
    pending = TimelineItem(
        key="k", kind="marker", role="event", marker_event="handoff_review", edit=None
    )
    assert changes(ItemShown(item=pending))
    assert not changes.review_settled
    assert changes(ItemShown(item=pending.model_copy(update={"edit": 0})))
    assert changes.review_settled
