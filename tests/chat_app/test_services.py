"""A turn through the services on a real database (SQLite here; PostgreSQL when present)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import uuid

import pytest

from chat_app.db.engine import dispose_engine
from chat_app.root import root
from chat_app.settings import Settings
from tests.chat_app.db.backends import pg_url  # noqa: F401  (fixture)
from tests.chat_app.wire import drained, relayed


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path}/baton.db"
    else:
        # A schema of its own (dropped after the run), never the server's public one: a
        # migration of another checkout must not leave this one a revision it does not know.
        url = request.getfixturevalue("pg_url")
    return url


@pytest.fixture
def settings(db_url) -> Settings:
    # Small enough for resets within one turn, large enough that the instructions and the
    # tools' schemas (history tools included) leave room for a message at the reset threshold.
    return Settings(db_url=db_url, sim_delay=0, sim_window=3000)


@pytest.fixture
def database(db_url, app) -> str:
    """The URL of the database the test's app runs on, for what reaches it itself (another
    process, a raw session)."""
    return db_url


async def _drain(stream) -> list[dict]:
    return await drained(stream)


def test_a_turn_streams_resets_and_persists(database, app) -> None:
    from chat_app.services.conversation.runs import chat
    from chat_app.services.conversation.threads import chats as threads

    owner = f"owner-{uuid.uuid4().hex[:8]}"
    thread = threads.create_thread(app, owner, "CSV parser")
    events = asyncio.run(
        _drain(chat.send_message(app, owner, thread.id, "Build a CSV parser for invoices"))
    )
    kinds = {e["type"] for e in events}
    assert {"item", "token", "utilization", "context_reset", "done"} <= kinds
    complete = [
        e for e in events if e["type"] == "context_reset" and e["data"]["event"] == "reset_complete"
    ]
    assert complete[0]["data"]["divider"]["kind"] == "divider"
    assert complete[0]["data"]["chip"]["label"] == "Session 2 ← current"

    view = threads.load_timeline(app, owner, thread.id)
    assert view is not None
    assert view.items[1].content == "Build a CSV parser for invoices"
    dividers = [i for i in view.items if i.kind == "divider"]
    assert [d.session_number for d in dividers] == list(range(1, len(view.sessions) + 1))
    assert dividers[1].handoff and dividers[1].handoff_filename == "HANDOFF-1.md"
    assert view.sessions[-1].current and view.meter.window == 3000
    assert threads.load_timeline(app, "someone-else", thread.id) is None
    name, markdown = threads.handoff_markdown(app, owner, thread.id, 2)
    assert name == "HANDOFF-1.md" and "## Completed Work" in markdown


def test_bad_input_is_refused_and_stores_nothing(database, app) -> None:
    from chat_app.services.conversation.runs import chat
    from chat_app.services.conversation.threads import chats as threads

    owner = f"owner-{uuid.uuid4().hex[:8]}"
    thread = threads.create_thread(app, owner, "x")
    for text in ("x" * (600 * 1024), "nul\x00byte", "bad \udcff surrogate", "   "):
        events = asyncio.run(_drain(chat.send_message(app, owner, thread.id, text)))
        assert [e["type"] for e in events] == ["error"]
    assert threads.load_timeline(app, owner, thread.id).items == []


def test_a_window_of_a_long_thread_and_loading_a_session_on_demand(database, app) -> None:
    from chat_app.services.conversation.runs import chat
    from chat_app.services.conversation.threads import chats as threads

    owner = f"owner-{uuid.uuid4().hex[:8]}"
    thread = threads.create_thread(app, owner, "long")
    asyncio.run(_drain(chat.send_message(app, owner, thread.id, "Build a CSV parser for invoices")))
    view = threads.load_timeline(app, owner, thread.id, limit=10)
    assert view.has_earlier and not view.sessions[0].loaded
    earlier = threads.load_from_session(
        app, owner, thread.id, 1, current_earliest_seq=view.earliest_seq
    )
    assert earlier[0].kind == "divider" and earlier[0].session_number == 1
    assert earlier[-1].seq < view.earliest_seq


def test_a_jump_loads_a_bounded_window_from_the_sessions_start_and_reads_on(database, app) -> None:
    from chat_app.services.conversation.runs import chat
    from chat_app.services.conversation.threads import chats as threads

    owner = f"owner-{uuid.uuid4().hex[:8]}"
    thread = threads.create_thread(app, owner, "long")
    for text in ("Build a CSV parser for invoices", "Now add a JSON exporter with tests"):
        asyncio.run(_drain(chat.send_message(app, owner, thread.id, text)))
    newest = threads.load_timeline(app, owner, thread.id, limit=500)
    assert len(newest.sessions) >= 3 and not newest.has_earlier
    everything = [item.key for item in newest.items]
    last_session = newest.sessions[-2].number
    window = threads.load_window_at(app, owner, thread.id, session_number=last_session, limit=6)
    assert window.items[0].kind == "divider" and window.items[0].session_number == last_session
    assert window.has_earlier and window.has_later
    # Reading on from the window's last row reaches the newest rows, in order, none twice.
    keys = [item.key for item in window.items]
    while window.has_later:
        window = threads.load_window_at(app, owner, thread.id, after_seq=window.last_seq, limit=6)
        assert window.items, "a window that has later rows returns some"
        keys += [item.key for item in window.items]
    assert keys == everything[everything.index(keys[0]) :]
    first = threads.load_window_at(app, owner, thread.id, session_number=1, limit=6)
    assert not first.has_earlier and first.has_later
    assert threads.load_window_at(app, "someone-else", thread.id, session_number=1) is None


def test_a_window_never_starts_with_a_tool_result_whose_call_is_not_shown(database, app) -> None:
    from chat_app.services.conversation.runs import chat
    from chat_app.services.conversation.threads import chats as threads

    owner = f"owner-{uuid.uuid4().hex[:8]}"
    thread = threads.create_thread(app, owner, "tools")
    asyncio.run(_drain(chat.send_message(app, owner, thread.id, "Build a CSV parser for invoices")))
    everything = threads.load_timeline(app, owner, thread.id, limit=1000).items
    for limit in range(1, 40):
        view = threads.load_timeline(app, owner, thread.id, limit=limit)
        tools = [item for item in view.items if item.kind == "tool"]
        # A result without its call would be the placeholder summary "Result of …".
        assert not [t for t in tools if t.summary.startswith("Result of")], limit
    assert any(item.kind == "tool" for item in everything)


def test_a_new_chat_is_named_after_its_first_message(database, app) -> None:
    from chat_app.services.conversation.runs import chat
    from chat_app.services.conversation.threads import chats as threads

    owner = f"owner-{uuid.uuid4().hex[:8]}"
    thread = threads.create_thread(app, owner)
    first = asyncio.run(_drain(chat.send_message(app, owner, thread.id, "Port the parser to Rust")))
    assert first[0] == {"type": "title", "data": {"title": "Port the parser to Rust"}}
    second = asyncio.run(_drain(chat.send_message(app, owner, thread.id, "and add benchmarks")))
    assert not [e for e in second if e["type"] == "title"]
    listed = threads.list_threads(app, owner)
    assert [t.title for t in listed] == ["Port the parser to Rust"]
    # Once there are several assistants (a shared PostgreSQL database may hold more), a chat
    # is labelled with its assistant's name too.
    choices = threads.list_assistant_choices(app)
    prefix = f"{choices[0].name} · " if len(choices) > 1 else ""
    assert listed[0].model_label == prefix + "Offline simulator"
    assert listed[0].session_count >= 1


def test_a_stranger_cannot_send_rename_delete_or_hand_off(database, app) -> None:
    from chat_app.services.conversation.runs import chat
    from chat_app.services.conversation.threads import chats as threads

    owner, stranger = f"owner-{uuid.uuid4().hex[:8]}", f"stranger-{uuid.uuid4().hex[:8]}"
    thread = threads.create_thread(app, owner, "Mine")
    sent = asyncio.run(_drain(chat.send_message(app, stranger, thread.id, "let me in")))
    assert sent == [{"type": "error", "data": {"message": "This thread does not exist."}}]
    handoff = asyncio.run(_drain(chat.run_handoff(app, stranger, thread.id, None)))
    assert handoff[0]["type"] == "error"
    assert threads.rename_thread(app, stranger, thread.id, "Yours") is None
    assert threads.delete_thread(app, stranger, thread.id) is False
    view = threads.load_timeline(app, owner, thread.id)
    assert view.thread.title == "Mine" and view.items == []


def test_stop_reaches_a_turn_running_in_another_worker_process(database, app) -> None:
    # A tab that reconnected to another worker presses Stop: no flag of that turn exists in
    # this process, so the stop must travel through the database.
    from chat_app.services.conversation.runs import chat
    from chat_app.services.conversation.threads import chats as threads

    owner = f"owner-{uuid.uuid4().hex[:8]}"
    thread = threads.create_thread(app, owner, "Long job")
    env = os.environ | {
        "REFLEX_DB_URL": database,
        "BATON_SIM_DELAY": "0.03",
        "BATON_SIM_WINDOW": "200000",
    }
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.chat_app.db.workers",
            "turn",
            owner,
            thread.id,
            "Build a CSV parser for invoices",
        ],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert worker.stdout.readline().strip() == "started"
        assert chat.stop(app, thread.id) is True  # counted on the thread's row
        last = json.loads(worker.stdout.readline())
        assert worker.wait(timeout=60) == 0
    finally:
        worker.kill()
    assert last == {"type": "done", "data": {"cancelled": True}}
    # The thread is usable afterwards, and an old Stop does not stop the next turn.
    after = asyncio.run(_drain(chat.send_message(app, owner, thread.id, "carry on")))
    assert after[-1] == {"type": "done", "data": {"cancelled": False}}


def test_running_turns_share_one_stop_poll_and_only_the_stopped_one_stops(
    database, monkeypatch, app
) -> None:
    # Stops counted on the rows (another worker's Stop) are read for every turn running on
    # this loop in one query per poll: a query per turn was 200 a second with 100 chats.
    from sqlalchemy import event
    from sqlmodel import Session

    from chat_app.db import repo
    from chat_app.db.engine import write_engine
    from chat_app.services.conversation.runs import stops
    from chat_app.services.conversation.threads import chats as threads

    monkeypatch.setattr(stops, "STOP_POLL_SECONDS", 0.05)
    owner = f"owner-{uuid.uuid4().hex[:8]}"
    ids = [threads.create_thread(app, owner, f"Job {n}").id for n in range(5)]
    polls: list[str] = []

    def count(conn, cursor, statement, *args) -> None:
        if "stop_requests" in statement and "UPDATE" not in statement.upper():
            polls.append(statement)

    engine = root().engine
    event.listen(engine, "before_cursor_execute", count)

    async def turns() -> list[bool]:
        flags = [asyncio.Event() for _ in ids]
        async with contextlib.AsyncExitStack() as stack:
            for thread_id, flag in zip(ids, flags, strict=True):
                await stack.enter_async_context(stops.stoppable(app, thread_id, flag))
            polls.clear()
            with Session(write_engine(engine)) as db:  # not this process's flag: the row only
                repo.request_stop(session=db, thread_id=ids[2])
            await asyncio.wait_for(flags[2].wait(), 10)
            await asyncio.sleep(0.2)  # a few more polls
            return [flag.is_set() for flag in flags]

    try:
        stopped = asyncio.run(turns())
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert stopped == [False, False, True, False, False]
    # Each poll is one query naming the running turns (four once the stopped one is set).
    assert polls and all(s.count("?") + s.count("%(") >= 4 for s in polls)
    assert len(polls) <= 0.35 / 0.05 + 2  # one query per poll, not one per turn


def test_a_new_chat_starts_with_the_chosen_assistant(database, app) -> None:
    from sqlmodel import Session

    from chat_app.db import repo
    from chat_app.db.engine import get_engine
    from chat_app.db.models import AssistantCreate
    from chat_app.services.conversation.runs import chat
    from chat_app.services.conversation.threads import chats as threads

    default = threads.list_assistant_choices(app)[0]
    with Session(get_engine(database)) as db:
        writer = repo.create_assistant(
            session=db, data=AssistantCreate(name=f"Writer-{uuid.uuid4().hex[:6]}")
        )
        writer_id = writer.id
    choices = threads.list_assistant_choices(app)
    assert choices[0].id == default.id and writer_id in [c.id for c in choices]

    owner = f"owner-{uuid.uuid4().hex[:8]}"
    chosen = threads.create_thread(app, owner, assistant_id=writer_id)
    fallback = threads.create_thread(app, owner, assistant_id="no-such-assistant")
    assert threads.owned_thread(app, owner, chosen.id).assistant_id == writer_id
    assert threads.owned_thread(app, owner, fallback.id).assistant_id == default.id
    asyncio.run(_drain(chat.send_message(app, owner, chosen.id, "hello")))
    labels = {t.id: t.model_label for t in threads.list_threads(app, owner)}
    assert labels[chosen.id].startswith("Writer-") and labels[chosen.id].endswith(
        "Offline simulator"
    )


def test_messages_queued_before_a_crash_are_shown_and_answered(database, app) -> None:
    from chat_app.services.conversation.runs import chat
    from chat_app.services.conversation.threads import chats as threads

    owner = f"owner-{uuid.uuid4().hex[:8]}"
    thread = threads.create_thread(app, owner, "Left behind")
    other = threads.create_thread(app, owner, "Also left behind")
    # Stored as queued, then the backend died before a turn delivered them.
    for thread_id, text in [
        (thread.id, "first queued"),
        (thread.id, "second queued"),
        (other.id, "queued elsewhere"),
    ]:
        root().store.enqueue_pending(thread_id, text)

    view = threads.load_timeline(app, owner, thread.id)
    assert view.pending == 2
    assert [(i.content, i.queued) for i in view.items[-2:]] == [
        ("first queued", True),
        ("second queued", True),
    ]

    events = asyncio.run(_drain(chat.resume_queued(app, owner, thread.id)))
    delivered = [
        e["data"]["content"]
        for e in events
        if e["type"] == "item" and e["data"].get("role") == "user"
    ]
    assert delivered == ["first queued", "second queued"]
    assert any(e["type"] == "item" and e["data"].get("role") == "assistant" for e in events)
    assert root().store.pending(thread.id) == []
    assert threads.load_timeline(app, owner, thread.id).pending == 0
    assert asyncio.run(_drain(chat.resume_queued(app, owner, thread.id))) == []  # nothing twice

    assert asyncio.run(chat.resume_all_queued(app)) == 1  # start-up: the other thread
    assert root().store.pending(other.id) == []
    answered = threads.load_timeline(app, owner, other.id).items
    assert [i.content for i in answered if i.role == "user"] == ["queued elsewhere"]
    assert any(i.role == "assistant" for i in answered)


def test_a_message_delivered_by_a_handoff_is_answered_after_it_once(database, app) -> None:
    """Another tab's message that queued while /handoff ran: the commit delivers it into the
    new session, and the handoff's end answers it in a run of its own, once."""
    from chat_app.services.conversation.runs import chat
    from chat_app.services.conversation.threads import chats as threads

    owner = f"owner-{uuid.uuid4().hex[:8]}"
    thread = threads.create_thread(app, owner, "Handoff and a late message")
    asyncio.run(_drain(chat.send_message(app, owner, thread.id, "Build a CSV parser for invoices")))
    late = "Also handle semicolons as separators"

    async def handoff_then_answer() -> list[dict]:
        root().store.enqueue_pending(thread.id, late)  # waiting behind the handoff
        events = await _drain(chat.run_handoff(app, owner, thread.id, None))
        await asyncio.gather(*chat._detached)  # the run every tab follows (answer_waiting)
        return events

    events = asyncio.run(handoff_then_answer())
    assert [e["data"]["status"] for e in events if e["type"] == "handoff"][-1] == "done"
    store = root().store
    rows = [r for s in store.sessions(thread.id) for r in store.messages(s.id)]
    asked = [
        r
        for r in rows
        if r.role == "user" and r.content == late and not r.meta.get("carried_over_from")
    ]
    assert len(asked) == 1 and asked[0].meta.get("queued") is True
    assert any(r.role == "assistant" and r.seq > asked[0].seq for r in rows)
    view = threads.load_timeline(app, owner, thread.id, limit=10_000)  # the whole thread
    assert [i.content for i in view.items if i.role == "user"].count(late) == 1
    assert not view.awaiting_reply and view.pending == 0
    assert asyncio.run(_drain(chat.resume_queued(app, owner, thread.id))) == []  # nothing twice


def test_a_delivered_message_no_turn_took_is_offered_to_the_page(database, app) -> None:
    """A process that died between the delivery and the reply: the page that opens the
    chat sees the message waiting and answers it (an imported chat never)."""
    from chat_app.services.conversation.runs import chat
    from chat_app.services.conversation.threads import chats as threads

    owner = f"owner-{uuid.uuid4().hex[:8]}"
    thread = threads.create_thread(app, owner, "Died before the reply")
    store = root().store
    store.enqueue_pending(thread.id, "hello there")
    store.deliver_pending(thread.id, store.current_session(thread.id).id)
    view = threads.load_timeline(app, owner, thread.id)
    assert view.awaiting_reply and view.pending == 0
    events = asyncio.run(_drain(chat.resume_queued(app, owner, thread.id)))
    assert any(e["type"] == "item" and e["data"].get("role") == "assistant" for e in events)
    assert not threads.load_timeline(app, owner, thread.id).awaiting_reply


def test_a_handed_over_request_waits_while_its_handoff_waits_for_review(database, app) -> None:
    from agent_core import NewMessage
    from agent_core.runtime import review_opening
    from chat_app.services.conversation.runs import chat
    from chat_app.services.conversation.threads import chats as threads

    owner = f"owner-{uuid.uuid4().hex[:8]}"
    thread = threads.create_thread(app, owner, "Under review")
    store = root().store
    old = store.current_session(thread.id)
    store.append(thread.id, old.id, [NewMessage(role="user", content="Parse the dates")])
    store.commit_reset(
        thread.id,
        old_session_id=old.id,
        trigger="auto",
        utilization=0.85,
        model="simulator",
        handoff={"goal": "Parse the dates"},
        handoff_path="HANDOFF-1.md",
        handoff_markdown="# Handoff\n",
        context=[
            NewMessage(role="handoff", content="<handoff-context>"),
            review_opening(),
            NewMessage(role="user", content="Parse the dates", meta={"carried_over_from": "x"}),
        ],
    )
    # Unanswered, but the review holds it: opening the chat runs nothing (confirming does).
    assert not threads.load_timeline(app, owner, thread.id).awaiting_reply
    assert asyncio.run(_drain(chat.resume_queued(app, owner, thread.id))) == []


def test_a_chat_whose_assistant_cannot_run_opens_and_keeps_what_is_typed(database, app) -> None:
    from sqlmodel import Session

    from chat_app.db import repo
    from chat_app.db.engine import write_engine
    from chat_app.db.models import AssistantCreate, AssistantUpdate
    from chat_app.services.conversation.runs import chat
    from chat_app.services.conversation.threads import chats as threads

    owner = f"owner-{uuid.uuid4().hex[:8]}"
    # Saved before models were checked (or its provider went away since).
    with Session(write_engine(root().engine)) as db:
        assistant_id = repo.create_assistant(
            session=db, data=AssistantCreate(name="Typo", model="foo:bar")
        ).id
    thread = threads.create_thread(app, owner, "Typo chat", assistant_id=assistant_id)

    view = threads.load_timeline(app, owner, thread.id)
    assert "cannot run" in view.problem and "Unknown model provider 'foo'" in view.problem

    events = asyncio.run(
        _drain(chat.send_message(app, owner, thread.id, "Please keep this", "c-1"))
    )
    kinds = [e["type"] for e in events]
    assert kinds[-3:] == ["accepted", "queued", "error"]
    assert "Your message is kept" in events[-1]["data"]["message"]
    assert [p.content for p in root().store.pending(thread.id)] == ["Please keep this"]
    assert asyncio.run(_drain(chat.resume_queued(app, owner, thread.id))) == []  # waits for the fix

    with Session(write_engine(root().engine)) as db:
        repo.update_assistant(
            session=db, assistant_id=assistant_id, changes=AssistantUpdate(model="simulator")
        )
        db.commit()
    answered = asyncio.run(_drain(chat.resume_queued(app, owner, thread.id)))
    assert any(e["type"] == "item" and e["data"].get("role") == "assistant" for e in answered)
    assert threads.load_timeline(app, owner, thread.id).problem == ""


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("/handoff", ("handoff", None)),
        ("/handoff the parser", ("handoff", "the parser")),
        ("/help", ("unknown", "help")),
        ("/clear now", ("unknown", "clear")),
        ("/usr/bin/python crashes", None),  # a path, not a command
        (" /help", None),  # a leading space sends it as a message
        ("what does /help do?", None),
    ],
)
def test_commands_are_recognised_and_unknown_ones_are_not_sent(text, parsed) -> None:
    from chat_app.services.conversation.runs.chat import parse_command

    assert parse_command(text) == parsed


def test_a_message_too_large_for_a_fresh_session_is_refused_before_it_is_stored(
    database, app
) -> None:
    from agent_core.errors import MessageTooLarge
    from chat_app.services.conversation.runs import chat
    from chat_app.services.conversation.threads import chats as threads

    owner = f"owner-{uuid.uuid4().hex[:8]}"
    thread = threads.create_thread(app, owner, "Paste")
    paste = "2026-12-01 12:00:00 INFO request served in 12 ms\n" * 800  # ~40 KB of log
    with pytest.raises(MessageTooLarge, match="more than this assistant's model can take") as big:
        asyncio.run(chat.check_fits(app, owner, thread.id, paste.strip()))
    assert big.value.size_bytes == len(paste.strip().encode())
    assert big.value.tokens > big.value.room_tokens > 0
    events = asyncio.run(_drain(chat.send_message(app, owner, thread.id, paste, "c-big")))
    assert [e["type"] for e in events] == ["error"]  # not stored, and the chat is not titled
    assert events[-1]["data"]["client_id"] == "c-big"
    assert "Shorten it or send it in parts" in events[-1]["data"]["message"]
    # The facts the chat needs to offer the text as an attachment instead.
    assert events[-1]["data"]["too_large"] == {
        "size_bytes": big.value.size_bytes,
        "tokens": big.value.tokens,
        "room_tokens": big.value.room_tokens,
    }
    assert root().store.pending(thread.id) == []
    asyncio.run(chat.check_fits(app, owner, thread.id, "Build a CSV parser for invoices"))  # fits


def test_a_runs_events_reach_the_threads_other_tabs_and_a_strangers_do_not(
    database, monkeypatch, app
) -> None:
    from chat_app.services.conversation.runs import chat
    from chat_app.services.conversation.threads import chats as threads

    owner = f"owner-{uuid.uuid4().hex[:8]}"
    thread = threads.create_thread(app, owner, "CSV parser")

    async def watched(sender: str) -> tuple[list[dict], list[dict]]:
        async with app.live.watch(thread.id) as queue:
            own = await _drain(
                chat.send_message(app, sender, thread.id, "Build a CSV parser", "tabA.1.x", "run-a")
            )
            seen = relayed(queue.get_nowait() for _ in range(queue.qsize()))
        return own, seen

    own, seen = asyncio.run(watched(owner))
    assert {e["run"] for e in seen} == {"run-a"}
    assert seen[0]["type"] == "run" and seen[0]["data"]["running"]
    assert seen[-1]["type"] == "run" and not seen[-1]["data"]["running"]
    # Everything the sending tab was shown, less its acknowledgement; tokens come batched.
    shown = [e["type"] for e in own if e["type"] not in ("token", "accepted")]
    assert [e["type"] for e in seen[1:-1] if e["type"] != "token"] == shown
    assert "".join(e["data"]["text"] for e in seen if e["type"] == "token") == "".join(
        e["data"]["text"] for e in own if e["type"] == "token"
    )
    assert not asyncio.run(app.live.is_running(thread.id))
    _, strangers = asyncio.run(watched("someone-else"))
    assert strangers == []


def test_the_assistants_tokenizers_are_loaded_before_the_first_chat(tmp_path, monkeypatch) -> None:
    from sqlmodel import Session

    from agent_core.accounting import get_encoding
    from chat_app.db import repo
    from chat_app.db.models import AssistantCreate
    from chat_app.services.runtime import runtime
    from chat_app.services.runtime.container import build_app
    from chat_app.settings import Settings

    url = f"sqlite:///{tmp_path}/baton.db"
    get_encoding.cache_clear()
    app = build_app(Settings(db_url=url))
    try:
        # No assistant yet: the default one the first chat makes runs on the simulator.
        assert runtime.load_tokenizers(app) == ["cl100k_base"]
        assert get_encoding.cache_info().currsize == 1
        with Session(app.engine) as db:
            repo.create_assistant(
                session=db, data=AssistantCreate(name="Omni", model="openai:gpt-4o")
            )
            repo.create_assistant(session=db, data=AssistantCreate(name="Sim", model="simulator"))
        assert runtime.load_tokenizers(app) == ["cl100k_base", "o200k_base"]
        assert get_encoding.cache_info().currsize == 2
    finally:
        dispose_engine(url)
