# ruff: noqa: F811  (pytest fixtures imported from the contract suite are parameters here)
"""SessionStore.fork_thread, on every store (in memory, SQLite, PostgreSQL): a fork holds
the thread as it was before one user message and then goes on by itself."""

from __future__ import annotations

import pytest

from agent_core import ContextEdit, NewMessage
from agent_core.errors import StoreError
from tests.chat_app.db.backends import pg_url  # noqa: F401
from tests.chat_app.test_store_contract import Backend, backend, reset, snapshot, user  # noqa: F401


def _reply(text: str) -> NewMessage:
    return NewMessage(role="assistant", content=text, meta={"usage": {"output_tokens": 3}})


def _two_sessions(backend: Backend) -> tuple[str, int]:
    """A thread with a reset: session 1 (ask, answer), session 2 (handoff, ask, answer, ask,
    answer); returns it and the seq of session 2's second question."""
    store = backend.store
    thread = backend.new_thread()
    first = store.current_session(thread)
    store.append(thread, first.id, [user("plan the garden"), _reply("beds and paths")])
    store.write_file(thread, "notes.md", "tomatoes")
    second, _ = reset(
        store, thread, first.id, context=[NewMessage(role="handoff", content="the garden so far")]
    )
    store.append(thread, second.id, [user("add a pond"), _reply("pond added")])
    asked = store.append(thread, second.id, [user("and a shed?")])[0]
    store.append(thread, second.id, [_reply("shed added")])
    return thread, asked.seq


def test_a_fork_holds_everything_before_the_message_and_the_source_is_unchanged(
    backend: Backend,
) -> None:
    store = backend.store
    source, cut = _two_sessions(backend)
    before = snapshot(store, source)
    target = backend.new_thread()

    sessions = store.fork_thread(source, target, before_seq=cut)

    assert snapshot(store, source) == before
    assert [s.number for s in sessions] == [1, 2] == [s.number for s in store.sessions(target)]
    assert sessions[0].ended_at is not None and sessions[1].ended_at is None
    assert sessions[1].parent_id == sessions[0].id and sessions[1].trigger == "threshold"
    assert sessions[1].handoff == before["sessions"][1].handoff
    copied = [(m.seq, m.role, m.content) for s in sessions for m in store.messages(s.id)]
    original = [
        (m.seq, m.role, m.content)
        for s in before["sessions"]
        for m in before["messages"][s.id]
        if m.seq < cut
    ]
    assert copied == original
    assert copied[-1] == (cut - 1, "assistant", "pond added")
    assert all(m.thread_id == target for s in sessions for m in store.messages(s.id))
    assert store.messages(sessions[1].id)[-1].meta == {"usage": {"output_tokens": 3}}
    assert store.list_files(target) == ["HANDOFF-1.md", "notes.md"]


def test_a_fork_goes_on_by_itself(backend: Backend) -> None:
    store = backend.store
    source, cut = _two_sessions(backend)
    target = backend.new_thread()
    store.fork_thread(source, target, before_seq=cut)
    before = snapshot(store, source)

    open_session = store.current_session(target)
    sent = store.append(target, open_session.id, [user("a greenhouse instead")])[0]
    third, _ = reset(store, target, open_session.id, n=3)

    assert sent.seq == cut
    assert [s.number for s in store.sessions(target)] == [1, 2, 3]
    assert third.parent_id == open_session.id
    assert store.read_file(target, "HANDOFF-2.md") == "# Handoff 2\n"
    assert snapshot(store, source) == before
    assert [m.content for m in store.search_messages(target, "greenhouse")] == [
        "a greenhouse instead"
    ]
    assert store.search_messages(source, "greenhouse") == []


def test_a_fork_leaves_out_later_handoffs_and_edits_made_after_the_message(
    backend: Backend,
) -> None:
    store = backend.store
    thread = backend.new_thread()
    first = store.current_session(thread)
    rows = store.append(thread, first.id, [user("one"), _reply("two"), user("three")])
    early = ContextEdit(kind="compaction", summary="one, two", upto_seq=rows[1].seq)
    store.add_context_edit(
        first.id,
        early,
        NewMessage(role="event", content="compacted", meta={"event": "compaction", "edit": 0}),
    )
    asked = store.append(thread, first.id, [user("four")])[0]
    late = ContextEdit(kind="compaction", summary="one to three", upto_seq=rows[2].seq)
    store.add_context_edit(
        first.id,
        late,
        NewMessage(
            role="event", content="compacted again", meta={"event": "compaction", "edit": 1}
        ),
    )
    reset(store, thread, first.id)
    target = backend.new_thread()

    sessions = store.fork_thread(thread, target, before_seq=asked.seq)

    assert len(sessions) == 1 and sessions[0].ended_at is None
    assert store.context_edits(sessions[0].id) == [early]
    assert store.list_files(target) == []  # HANDOFF-1.md opened a session the fork lacks


def test_fork_refuses_a_row_that_is_no_user_message_and_a_used_target(backend: Backend) -> None:
    store = backend.store
    source, cut = _two_sessions(backend)
    target = backend.new_thread()
    with pytest.raises(StoreError):
        store.fork_thread(source, target, before_seq=cut + 1)  # the assistant's reply
    with pytest.raises(StoreError):
        store.fork_thread(source, target, before_seq=10_000)
    store.current_session(target)
    with pytest.raises(StoreError):
        store.fork_thread(source, target, before_seq=cut)
    assert [s.number for s in store.sessions(target)] == [1]


def plant_file(backend: Backend, thread: str, path: str, content: str) -> None:
    """A file stored under a name from before today's path rule, past the store's check (as
    a database from an older version holds it)."""
    if backend.name == "memory":
        backend.store._files[thread][path] = content
        return
    from sqlmodel import Session

    from chat_app.db.models import ThreadFile

    with Session(backend.store._writer) as db:
        db.add(ThreadFile(thread_id=thread, path=path, content=content))
        db.commit()


def test_a_fork_copies_an_old_unsafe_name_under_its_portable_name(backend: Backend) -> None:
    store = backend.store
    source, cut = _two_sessions(backend)
    plant_file(backend, source, "..\\..\\evil.txt", "planted")
    target = backend.new_thread()
    store.fork_thread(source, target, before_seq=cut)
    assert store.list_files(target) == ["HANDOFF-1.md", "_/_/evil.txt", "notes.md"]
    assert store.read_file(target, "_/_/evil.txt") == "planted"
    assert "..\\..\\evil.txt" in store.list_files(source)  # the source is left as it was
