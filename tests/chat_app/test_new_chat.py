"""A new chat is stored with its first message, never before (issue 19)."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from agent_core.errors import MessageRejected
from chat_app.root import root
from chat_app.settings import Settings
from tests.chat_app.db.backends import pg_url  # noqa: F401  (fixture)
from tests.chat_app.wire import drained


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path}/baton.db"
    else:
        url = request.getfixturevalue("pg_url")  # a schema of its own, skips without a server
    return url


@pytest.fixture
def settings(db_url) -> Settings:
    return Settings(db_url=db_url, sim_delay=0, sim_window=3000)


@pytest.fixture
def database(db_url, app) -> str:
    return db_url


def _owner() -> str:
    return f"owner-{uuid.uuid4().hex[:8]}"


def _answer(app, owner: str, thread_id: str) -> None:
    """Answer a chat's queued first message: nothing is left queued in a shared database
    (the start-up resume of other tests counts the threads that wait)."""
    from chat_app.services.conversation.runs import chat

    asyncio.run(_drain(chat.resume_queued(app, owner, thread_id)))


def test_the_first_message_creates_the_chat_queued_and_named(database, app) -> None:
    from chat_app.services.conversation.runs import chat, new_chat
    from chat_app.services.conversation.threads import chats as threads

    owner = _owner()
    assert not new_chat.has_chats(app, owner)
    thread_id = new_chat.start_chat(app, owner, "Port the parser\nto Rust", client_id="tab.1.x")

    view = threads.load_timeline(app, owner, thread_id)
    assert view.thread.title == "Port the parser to Rust"
    assert [(i.role, i.content, i.queued) for i in view.items] == [
        ("user", "Port the parser\nto Rust", True)
    ]
    assert new_chat.has_chats(app, owner)
    # The chat page answers it as it answers any message left queued.
    events = asyncio.run(_drain(chat.resume_queued(app, owner, thread_id)))
    assert any(e["type"] == "item" and e["data"]["role"] == "assistant" for e in events)
    assert [t.id for t in threads.list_threads(app, owner)] == [thread_id]


def test_a_refused_first_message_stores_nothing(database, app) -> None:
    from chat_app.services.conversation.runs import new_chat
    from chat_app.services.conversation.threads import chats as threads

    owner = _owner()
    with pytest.raises(MessageRejected):
        new_chat.start_chat(app, owner, "\u200b\u200b")
    with pytest.raises(MessageRejected, match="more than this assistant's model can take"):
        new_chat.start_chat(app, owner, "word " * 5000)
    with pytest.raises(MessageRejected):
        new_chat.start_chat(app, owner, "bad\x00byte")
    assert threads.list_threads(app, owner) == []
    assert not new_chat.has_chats(app, owner)


def test_chats_nothing_was_sent_to_are_not_listed(database, app) -> None:
    from chat_app.services.conversation.runs import new_chat
    from chat_app.services.conversation.threads import chats as threads

    owner = _owner()
    threads.create_thread(app, owner)  # what an older "New chat" click left behind
    kept = new_chat.start_chat(app, owner, "hello")
    assert [t.id for t in threads.list_threads(app, owner)] == [kept]
    _answer(app, owner, kept)


async def _drain(stream) -> list[dict]:
    return await drained(stream)


def test_the_same_first_message_sent_again_makes_one_chat(database, app) -> None:
    from chat_app.services.conversation.runs import new_chat
    from chat_app.services.conversation.threads import chats as threads

    owner = _owner()
    first = new_chat.start_chat(app, owner, "hello", client_id="tab.1.abc")
    again = new_chat.start_chat(app, owner, "hello", client_id="tab.1.abc")
    assert again == first
    assert [t.id for t in threads.list_threads(app, owner)] == [first]
    # Another browser's id is another message, even with the same text.
    stranger = _owner()
    theirs = new_chat.start_chat(app, stranger, "hello", client_id="tab.1.abc")
    assert theirs != first
    _answer(app, owner, first)
    _answer(app, stranger, theirs)


def _replies(thread_id: str) -> list[str]:

    store = root().store
    return [
        m.content
        for s in store.sessions(thread_id)
        for m in store.messages(s.id)
        if m.role == "assistant" and m.content
    ]


def test_a_first_message_whose_tab_closed_is_answered_anyway(database, app) -> None:
    # The tab sent the message and closed before it opened the chat: no page ever asks.
    from chat_app.services.conversation.runs import chat, new_chat

    owner = _owner()
    thread_id = new_chat.start_chat(app, owner, "Write a haiku about tides", client_id="tab.9.x")

    async def tab_closed() -> None:
        chat.resume_detached(app, owner, thread_id, after=0.2)  # what the draft page schedules
        for _ in range(600):
            await asyncio.sleep(0.1)
            if _replies(thread_id) and not root().store.pending(thread_id):
                return

    asyncio.run(tab_closed())
    assert root().store.pending(thread_id) == []
    assert len(_replies(thread_id)) >= 1


def test_a_chat_page_that_opened_in_time_leaves_the_server_nothing_to_answer(database, app) -> None:
    from chat_app.services.conversation.runs import chat, new_chat

    owner = _owner()
    thread_id = new_chat.start_chat(app, owner, "List three rivers", client_id="tab.8.x")

    async def page_opened() -> None:
        chat.resume_detached(app, owner, thread_id, after=0.5)  # the fallback
        chat.resume_detached(app, owner, thread_id)  # the chat page, opened at once
        for _ in range(600):
            await asyncio.sleep(0.1)
            if not chat._detached:
                return

    asyncio.run(page_opened())
    store = root().store
    users = [
        m
        for s in store.sessions(thread_id)
        for m in store.messages(s.id)
        if m.role == "user" and not m.meta.get("carried_over_from")
    ]
    assert [m.content for m in users] == ["List three rivers"]  # delivered once
    assert store.pending(thread_id) == []
