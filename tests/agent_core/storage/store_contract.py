"""The SessionStore contract: what every store (``agent_core.storage.SessionStore``) must do,
the same calls giving the same results and the same errors.

The in-memory store is the reference. A module that runs the suite for a store defines a
``backend`` fixture giving a :class:`Backend` and imports the tests::

    from tests.agent_core.storage.store_contract import *  # noqa: F403

``tests/agent_core/storage/test_store_contract.py`` runs it on ``InMemoryStore``;
``tests/chat_app/test_store_contract.py`` on ``SqlStore`` over SQLite and PostgreSQL.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from agent_core import ContextEdit, NewMessage, SessionStore
from agent_core.errors import StoreError
from agent_core.storage import MAX_PATH_CHARS

LOCK_WAIT_S = 10.0  # generous upper bound for "the other thread got the lock"
BLOCKED_PROBE_S = 0.3  # how long a blocked waiter must stay blocked to count as blocked


@dataclass
class Backend:
    """A store under test: its name, the store, how to make a thread, and how to plant a
    file under a name from before today's path rule, past the store's check (as a database
    from an older version holds it)."""

    name: str
    store: Any
    new_thread: Callable[[], str]
    plant_file: Callable[[str, str, str], None]


def user(text: str, **fields: Any) -> NewMessage:
    return NewMessage(role="user", content=text, **fields)


def reset(store: Any, thread_id: str, old_session_id: str, *, context=None, n: int = 2):
    return store.commit_reset(
        thread_id,
        old_session_id=old_session_id,
        trigger="threshold",
        utilization=0.83,
        model="simulator",
        handoff={"session_number": n - 1, "remaining_tasks": ["finish"]},
        handoff_path=f"HANDOFF-{n - 1}.md",
        handoff_markdown=f"# Handoff {n - 1}\n",
        context=context if context is not None else [NewMessage(role="handoff", content="h")],
    )


def snapshot(store: Any, thread_id: str) -> dict[str, Any]:
    """Everything observable about a thread through the port."""
    sessions = store.sessions(thread_id)
    return {
        "sessions": sessions,
        "messages": {s.id: store.messages(s.id) for s in sessions},
        "edits": {s.id: store.context_edits(s.id) for s in sessions},
        "files": {p: store.read_file(thread_id, p) for p in store.list_files(thread_id)},
        "pending": store.pending(thread_id),
    }


# sessions and messages ------------------------------------------------------------
def test_implements_the_port(backend: Backend) -> None:
    assert isinstance(backend.store, SessionStore)


def test_session_one_is_created_once_on_first_use(backend: Backend) -> None:
    thread = backend.new_thread()
    assert backend.store.sessions(thread) == []
    first = backend.store.current_session(thread)
    assert (first.number, first.trigger, first.parent_id, first.ended_at) == (
        1,
        "start",
        None,
        None,
    )
    assert backend.store.current_session(thread) == first
    assert backend.store.sessions(thread) == [first]


def test_append_numbers_rows_consecutively_and_keeps_every_field(backend: Backend) -> None:
    thread = backend.new_thread()
    session = backend.store.current_session(thread)
    call = {"id": "c1", "name": "write_file", "args": {"path": "a.py"}}
    first = backend.store.append(thread, session.id, [user("hi"), user("again")])
    second = backend.store.append(
        thread,
        session.id,
        [
            NewMessage(role="assistant", content="", tool_calls=[call], model="m", token_count=7),
            NewMessage(
                role="tool",
                content="ok",
                tool_call_id="c1",
                name="write_file",
                todo_id="t1",
                meta={"exit": 0},
            ),
        ],
    )
    assert [m.seq for m in first + second] == [1, 2, 3, 4]
    stored = backend.store.messages(session.id)
    assert stored == first + second
    assert stored[2].tool_calls == [call] and stored[2].token_count == 7
    assert (stored[3].tool_call_id, stored[3].name, stored[3].todo_id, stored[3].meta) == (
        "c1",
        "write_file",
        "t1",
        {"exit": 0},
    )
    assert all(m.thread_id == thread and m.session_id == session.id for m in stored)
    assert stored[0].created_at.tzinfo is not None


def test_marks_are_the_replies_and_markers_without_their_content(backend: Backend) -> None:
    thread = backend.new_thread()
    session = backend.store.current_session(thread)
    backend.store.append(
        thread,
        session.id,
        [
            user("hi"),
            NewMessage(
                role="assistant", content="long " * 500, meta={"context": {"fraction": 0.7}}
            ),
            NewMessage(role="tool", content="ok", tool_call_id="c1", name="read_file"),
            NewMessage(role="event", content="Not yet", meta={"event": "defer"}),
            NewMessage(role="assistant", content="done"),
        ],
    )
    marks = backend.store.marks(session.id)
    assert marks == [
        (2, "assistant", {"context": {"fraction": 0.7}}),
        (4, "event", {"event": "defer"}),
        (5, "assistant", {}),
    ]
    assert marks == [
        (m.seq, m.role, m.meta)
        for m in backend.store.messages(session.id)
        if m.role in ("assistant", "event")
    ]
    assert backend.store.marks(session.id, ("event",)) == [(4, "event", {"event": "defer"})]
    assert backend.store.marks(session.id, ("assistant",)) == [marks[0], marks[2]]
    assert backend.store.marks(session.id, ("user", "tool")) == []  # never more than marks


def test_tail_marks_are_the_last_user_row_and_what_follows_it(backend: Backend) -> None:
    thread = backend.new_thread()
    session = backend.store.current_session(thread)
    assert backend.store.tail_marks(session.id) == []
    backend.store.append(thread, session.id, [NewMessage(role="handoff", content="h")])
    assert backend.store.tail_marks(session.id) == []  # no user row yet
    backend.store.append(
        thread,
        session.id,
        [
            user("first"),
            NewMessage(role="assistant", content="answer " * 200),
            user("second", meta={"queued": True}),
            NewMessage(role="event", content="Server down", meta={"event": "tool_problem"}),
        ],
    )
    assert backend.store.tail_marks(session.id) == [
        (4, "user", {"queued": True}),
        (5, "event", {"event": "tool_problem"}),
    ]
    backend.store.append(thread, session.id, [NewMessage(role="assistant", content="ok")])
    assert [m.role for m in backend.store.tail_marks(session.id)] == ["user", "event", "assistant"]
    # Another session's rows are not in it.
    other = backend.new_thread()
    backend.store.append(other, backend.store.current_session(other).id, [user("elsewhere")])
    assert len(backend.store.tail_marks(session.id)) == 3


def test_append_to_another_threads_session_is_refused(backend: Backend) -> None:
    mine, other = backend.new_thread(), backend.new_thread()
    foreign = backend.store.current_session(other)
    with pytest.raises(StoreError):
        backend.store.append(mine, foreign.id, [user("x")])
    assert backend.store.messages(foreign.id) == []


def test_seq_is_per_thread(backend: Backend) -> None:
    a, b = backend.new_thread(), backend.new_thread()
    rows_a = backend.store.append(a, backend.store.current_session(a).id, [user("a1"), user("a2")])
    rows_b = backend.store.append(b, backend.store.current_session(b).id, [user("b1")])
    assert [m.seq for m in rows_a] == [1, 2] and [m.seq for m in rows_b] == [1]


# context edits ---------------------------------------------------------------------
def test_context_edits_keep_order_and_marker_gets_the_next_seq(backend: Backend) -> None:
    thread = backend.new_thread()
    session = backend.store.current_session(thread)
    backend.store.append(thread, session.id, [user("1"), user("2"), user("3")])
    compaction = ContextEdit(
        kind="compaction", summary="s1", upto_seq=2, tokens_before=90, tokens_after=10
    )
    todo = ContextEdit(kind="todo", summary="s2", seqs=[3], todo_id="t1")
    marker = backend.store.add_context_edit(
        session.id, compaction, NewMessage(role="event", content="compacted")
    )
    assert backend.store.add_context_edit(session.id, todo) is None
    assert backend.store.context_edits(session.id) == [compaction, todo]
    rows = backend.store.messages(session.id)
    assert (rows[-1].role, rows[-1].seq) == ("event", 4)
    assert marker == rows[-1]  # the stored marker itself, id included


def test_context_edit_on_unknown_session_fails(backend: Backend) -> None:
    with pytest.raises(StoreError):
        backend.store.add_context_edit("nope", ContextEdit(kind="compaction", summary="s"))


# files -----------------------------------------------------------------------------
def test_files_read_write_overwrite_and_list_sorted(backend: Backend) -> None:
    thread = backend.new_thread()
    assert backend.store.read_file(thread, "PLAN.md") is None
    backend.store.write_file(thread, "PLAN.md", "v1")
    backend.store.write_file(thread, "contracts/api.md", "api")
    backend.store.write_file(thread, "PLAN.md", "v2")
    assert backend.store.read_file(thread, "PLAN.md") == "v2"
    assert backend.store.list_files(thread) == ["PLAN.md", "contracts/api.md"]
    assert backend.store.list_files(backend.new_thread()) == []


def test_a_path_longer_than_the_column_is_refused_everywhere(backend: Backend) -> None:
    # SQLite would store it and PostgreSQL's varchar would fail mid-turn: every store refuses
    # it the same way (the tools refuse it earlier still, with a message for the model).
    thread = backend.new_thread()
    backend.store.write_file(thread, "a" * MAX_PATH_CHARS, "fits")
    with pytest.raises(StoreError, match=f"longer than {MAX_PATH_CHARS} characters"):
        backend.store.write_file(thread, "a" * (MAX_PATH_CHARS + 1), "too long")
    assert backend.store.list_files(thread) == ["a" * MAX_PATH_CHARS]


def test_file_changes_are_written_and_deleted_together(backend: Backend) -> None:
    thread = backend.new_thread()
    backend.store.write_file(thread, "old.py", "gone soon")
    backend.store.write_file(thread, "kept.py", "v1")
    backend.store.apply_file_changes(
        thread, written={"kept.py": "v2", "new/b.txt": "b"}, deleted=["old.py", "never-was.py"]
    )
    assert backend.store.list_files(thread) == ["kept.py", "new/b.txt"]
    assert backend.store.read_file(thread, "kept.py") == "v2"


def test_file_changes_are_all_or_nothing(backend: Backend) -> None:
    # A command's write-back with one unstorable path leaves the workspace as it was.
    thread = backend.new_thread()
    backend.store.write_file(thread, "a.py", "v1")
    with pytest.raises(StoreError, match=f"longer than {MAX_PATH_CHARS} characters"):
        backend.store.apply_file_changes(
            thread, written={"a.py": "v2", "b" * (MAX_PATH_CHARS + 1): "x"}, deleted=["a.py"]
        )
    assert backend.store.list_files(thread) == ["a.py"]
    assert backend.store.read_file(thread, "a.py") == "v1"


@pytest.mark.parametrize("name", ["..\\..\\evil.txt", "C:evil.txt", "a/.. /b.txt", "./a.py"])
def test_a_name_outside_the_path_rule_is_refused_by_every_store(
    backend: Backend, name: str
) -> None:
    # The tools check names first; the store checks them again so that no way into a
    # workspace (write-back, attachments, imports, forks, code yet to come) can skip the rule.
    thread = backend.new_thread()
    backend.store.write_file(thread, "a.py", "v1")
    with pytest.raises(StoreError, match="nothing was stored"):
        backend.store.write_file(thread, name, "x")
    with pytest.raises(StoreError, match="nothing was stored"):
        backend.store.apply_file_changes(
            thread, written={"a.py": "v2", name: "x"}, deleted=["a.py"]
        )
    assert backend.store.list_files(thread) == ["a.py"]
    assert backend.store.read_file(thread, "a.py") == "v1"


# pending ---------------------------------------------------------------------------
def test_pending_messages_are_delivered_once_in_send_order(backend: Backend) -> None:
    thread = backend.new_thread()
    session = backend.store.current_session(thread)
    queued = [backend.store.enqueue_pending(thread, f"p{i}") for i in range(3)]
    assert [p.seq for p in queued] == [1, 2, 3]
    assert backend.store.pending(thread) == queued
    first = backend.store.deliver_pending(thread, session.id, limit=2)
    assert [m.content for m in first] == ["p0", "p1"]
    assert [m.meta["pending_id"] for m in first] == [queued[0].id, queued[1].id]
    assert [p.content for p in backend.store.pending(thread)] == ["p2"]
    rest = backend.store.deliver_pending(thread, session.id)
    assert [m.content for m in rest] == ["p2"] and all(m.role == "user" for m in rest)
    assert backend.store.deliver_pending(thread, session.id) == []
    assert backend.store.pending(thread) == []
    # What a delivery returns is what a read gives (a turn's start builds on it unread).
    assert backend.store.messages(session.id) == first + rest
    # Delivered at the start of a turn: ordinary messages.
    assert not any("queued" in m.meta for m in first + rest)


def test_a_message_delivered_while_a_turn_runs_says_it_was_queued(backend: Backend) -> None:
    """At a model call of a running turn (``queued``) the user typed it while the agent
    worked; the handoff says so."""
    thread = backend.new_thread()
    session = backend.store.current_session(thread)
    record = backend.store.enqueue_pending(thread, "also the dates")
    [row] = backend.store.deliver_pending(thread, session.id, queued=True)
    assert row.meta == {"pending_id": record.id, "queued": True}
    assert backend.store.messages(session.id) == [row]


def test_a_tabs_messages_are_queued_in_the_order_the_tab_sent_them(backend: Backend) -> None:
    """A tab's sends can arrive out of order (each runs as its own task); its numbered ids
    put a late arrival back before the tab's later, still undelivered messages."""
    thread = backend.new_thread()
    session = backend.store.current_session(thread)
    send = backend.store.enqueue_pending
    send(thread, "A3", client_id="tabA.3.x")
    send(thread, "B1", client_id="tabB.1.x")
    send(thread, "A1", client_id="tabA.1.x")
    send(thread, "plain", client_id="not-numbered")
    send(thread, "A2", client_id="tabA.2.x")
    queue = [p.content for p in backend.store.pending(thread)]
    assert queue == ["A1", "B1", "A2", "plain", "A3"]
    assert [p.content for p in sorted(backend.store.pending(thread), key=lambda p: p.seq)] == queue
    # Delivered messages stay where they are: a later arrival of the tab only goes before
    # what still waits.
    assert [m.content for m in backend.store.deliver_pending(thread, session.id, limit=2)] == [
        "A1",
        "B1",
    ]
    send(thread, "A0", client_id="tabA.0.x")
    # The tab's waiting messages move one of its slots on; other messages keep theirs.
    assert [p.content for p in backend.store.pending(thread)] == ["A0", "plain", "A2", "A3"]
    assert backend.store.has_client_message(thread, "tabA.2.")
    assert not backend.store.has_client_message(thread, "tabA.4.")
    assert not backend.store.has_client_message(thread, "tab%.")  # a prefix, not a pattern
    # A re-send under a known id changes nothing.
    send(thread, "A2", client_id="tabA.2.x")
    assert [m.content for m in backend.store.deliver_pending(thread, session.id)] == [
        "A0",
        "plain",
        "A2",
        "A3",
    ]


# reset -----------------------------------------------------------------------------
def test_a_message_sent_again_under_its_client_id_is_stored_once(backend: Backend) -> None:
    thread, other = backend.new_thread(), backend.new_thread()
    session = backend.store.current_session(thread)
    first = backend.store.enqueue_pending(thread, "hello", client_id="tab-1-msg-1")
    again = backend.store.enqueue_pending(thread, "hello", client_id="tab-1-msg-1")
    assert again.id == first.id and again.client_id == "tab-1-msg-1"
    assert [p.id for p in backend.store.pending(thread)] == [first.id]
    # The same client id on another thread is another message.
    assert backend.store.enqueue_pending(other, "hello", client_id="tab-1-msg-1").id != first.id
    backend.store.deliver_pending(thread, session.id)
    late = backend.store.enqueue_pending(thread, "hello", client_id="tab-1-msg-1")
    assert late.id == first.id and late.delivered_session_id == session.id
    assert backend.store.pending(thread) == []
    assert [m.content for m in backend.store.messages(session.id)] == ["hello"]


def test_commit_reset_opens_the_next_session_with_context_then_pending(backend: Backend) -> None:
    thread = backend.new_thread()
    old = backend.store.current_session(thread)
    backend.store.append(thread, old.id, [user("before")])
    backend.store.enqueue_pending(thread, "queued during reset")
    context = [NewMessage(role="handoff", content="h"), NewMessage(role="pinned", content="plan")]
    new, rows = reset(backend.store, thread, old.id, context=context)
    assert (new.number, new.parent_id, new.trigger, new.utilization, new.model) == (
        2,
        old.id,
        "threshold",
        0.83,
        "simulator",
    )
    assert new.handoff == {"session_number": 1, "remaining_tasks": ["finish"]}
    assert [(m.role, m.content) for m in rows] == [
        ("handoff", "h"),
        ("pinned", "plan"),
        ("user", "queued during reset"),
    ]
    assert [m.seq for m in rows] == [2, 3, 4]
    # Sent while the reset ran: the user typed it while the agent worked.
    assert rows[-1].meta.get("queued") is True and rows[0].meta == {}
    assert backend.store.messages(new.id) == rows
    assert backend.store.read_file(thread, "HANDOFF-1.md") == "# Handoff 1\n"
    assert backend.store.pending(thread) == []
    sessions = backend.store.sessions(thread)
    assert [s.number for s in sessions] == [1, 2]
    assert sessions[0].ended_at is not None and sessions[1].ended_at is None
    assert backend.store.current_session(thread) == new


def test_commit_reset_on_a_stale_session_changes_nothing(backend: Backend) -> None:
    thread = backend.new_thread()
    old = backend.store.current_session(thread)
    reset(backend.store, thread, old.id)
    before = snapshot(backend.store, thread)
    with pytest.raises(StoreError):
        reset(backend.store, thread, old.id, n=3)
    assert snapshot(backend.store, thread) == before


class _FailingContext(list):
    """A context whose second item cannot be read: a failure in the middle of the reset."""

    def __iter__(self):
        yield self[0]
        raise RuntimeError("injected failure while writing the new session's context")


def check_a_failed_reset_leaves_nothing(
    backend: Backend, failing_reset: Callable[[str, str], object]
) -> None:
    """``failing_reset(thread, old_session_id)`` is a reset that fails midway: the thread is
    left as it was, and the next reset goes through."""
    thread = backend.new_thread()
    old = backend.store.current_session(thread)
    backend.store.append(thread, old.id, [user("before")])
    backend.store.enqueue_pending(thread, "queued")
    before = snapshot(backend.store, thread)
    with pytest.raises(RuntimeError, match="injected failure"):
        failing_reset(thread, old.id)
    assert snapshot(backend.store, thread) == before
    new, rows = reset(backend.store, thread, old.id)
    assert new.number == 2 and [m.seq for m in rows] == [2, 3]


def test_commit_reset_failing_while_writing_its_context_leaves_nothing_half_written(
    backend: Backend,
) -> None:
    context = _FailingContext([NewMessage(role="handoff", content="h"), NewMessage(role="pinned")])
    check_a_failed_reset_leaves_nothing(
        backend, lambda thread, old: reset(backend.store, thread, old, context=context)
    )


# turn lock -------------------------------------------------------------------------
def _hold_in_background(
    store: Any, thread_id: str
) -> tuple[threading.Event, threading.Event, threading.Thread]:
    acquired, release = threading.Event(), threading.Event()

    def run() -> None:
        with store.turn_lock(thread_id):
            acquired.set()
            release.wait(LOCK_WAIT_S)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    return acquired, release, worker


def test_turn_lock_serializes_one_thread(backend: Backend) -> None:
    thread = backend.new_thread()
    with backend.store.turn_lock(thread):
        acquired, release, worker = _hold_in_background(backend.store, thread)
        assert not acquired.wait(BLOCKED_PROBE_S), "a second turn ran while the first held the lock"
    assert acquired.wait(LOCK_WAIT_S), "the waiting turn never got the lock"
    release.set()
    worker.join(LOCK_WAIT_S)


def test_turn_lock_does_not_block_other_threads(backend: Backend) -> None:
    first, second = backend.new_thread(), backend.new_thread()
    with backend.store.turn_lock(first):
        acquired, release, worker = _hold_in_background(backend.store, second)
        assert acquired.wait(LOCK_WAIT_S), "a turn on another thread waited for this thread's lock"
        release.set()
        worker.join(LOCK_WAIT_S)


# history search ---------------------------------------------------------------------
def _found(rows: Any) -> list[str]:
    return sorted(row.content for row in rows)


def test_search_finds_originals_of_every_session_even_when_compacted(backend: Backend) -> None:
    store = backend.store
    thread = backend.new_thread()
    first = store.current_session(thread)
    store.append(
        thread,
        first.id,
        [user("the deploy key lives in vault/prod.yaml"), user("unrelated chatter")],
    )
    store.add_context_edit(
        first.id,
        ContextEdit(kind="compaction", summary="s", upto_seq=2),
        NewMessage(role="event", content="Compacted: vault deploy"),
    )
    second, _ = reset(store, thread, first.id)
    store.append(thread, second.id, [user("Rotate the DEPLOY key in Vault today")])

    found = store.search_messages(thread, "vault deploy")

    assert _found(found) == [
        "Rotate the DEPLOY key in Vault today",
        "the deploy key lives in vault/prod.yaml",
    ]
    assert {row.session_id for row in found} == {first.id, second.id}


def test_search_needs_every_word_split_at_punctuation(backend: Backend) -> None:
    store = backend.store
    thread = backend.new_thread()
    session = store.current_session(thread)
    store.append(
        thread, session.id, [user("edited agent_core/tools/_builtin.py twice"), user("tools only")]
    )

    assert _found(store.search_messages(thread, "TOOLS.py")) == [
        "edited agent_core/tools/_builtin.py twice"
    ]
    assert _found(store.search_messages(thread, "core tools")) == [
        "edited agent_core/tools/_builtin.py twice"
    ]
    assert store.search_messages(thread, "tools missingword") == []
    assert store.search_messages(thread, "tool") == []  # whole words, no stemming


def test_search_reads_tool_call_arguments_and_skips_event_rows(backend: Backend) -> None:
    store = backend.store
    thread = backend.new_thread()
    session = store.current_session(thread)
    call = {"name": "write_file", "args": {"path": "notes/zebra.md", "content": "x"}, "id": "c1"}
    store.append(
        thread,
        session.id,
        [
            NewMessage(role="assistant", content="writing it", tool_calls=[call]),
            NewMessage(role="event", content="zebra marker"),
            NewMessage(role="system", content="zebra system"),
        ],
    )

    assert _found(store.search_messages(thread, "zebra")) == ["writing it"]


def test_search_stays_in_its_thread_and_session(backend: Backend) -> None:
    store = backend.store
    mine, theirs = backend.new_thread(), backend.new_thread()
    first = store.current_session(mine)
    store.append(mine, first.id, [user("kiwi in session one")])
    second, _ = reset(store, mine, first.id)
    store.append(mine, second.id, [user("kiwi in session two")])
    other = store.current_session(theirs)
    store.append(theirs, other.id, [user("kiwi of another thread")])

    assert _found(store.search_messages(mine, "kiwi")) == [
        "kiwi in session one",
        "kiwi in session two",
    ]
    assert _found(store.search_messages(mine, "kiwi", session_id=second.id)) == [
        "kiwi in session two"
    ]
    assert store.search_messages(mine, "kiwi", session_id=other.id) == []


def test_search_honours_the_limit_and_ignores_query_syntax(backend: Backend) -> None:
    store = backend.store
    thread = backend.new_thread()
    session = store.current_session(thread)
    store.append(thread, session.id, [user(f"mango number {i}") for i in range(5)])

    assert len(store.search_messages(thread, "mango", limit=3)) == 3
    assert len(store.search_messages(thread, 'mango" OR NEAR(* -x:', limit=10)) == 0
    assert len(store.search_messages(thread, '"mango" AND', limit=10)) == 0
    assert store.search_messages(thread, "  ...  ") == []


def test_an_undone_context_edit_stays_recorded_as_undone(backend: Backend) -> None:
    store = backend.store
    thread = backend.new_thread()
    session = store.current_session(thread)
    store.append(thread, session.id, [user("1"), user("2"), user("3")])
    compaction = ContextEdit(kind="compaction", summary="s1", upto_seq=2, utilization=0.52)
    mask = ContextEdit(kind="mask", summary="", seqs=[3], placeholders={3: "[masked]"})
    store.add_context_edit(session.id, compaction)
    store.add_context_edit(session.id, mask)

    undone = store.undo_context_edit(session.id, 1)

    assert undone == mask.model_copy(update={"undone": True})
    assert store.context_edits(session.id) == [compaction, undone]
    with pytest.raises(StoreError):
        store.undo_context_edit(session.id, 2)


def test_a_reviewed_handoff_keeps_both_versions_and_the_context_sample(backend: Backend) -> None:
    thread = backend.new_thread()
    session = backend.store.current_session(thread)
    sample = {"tokens": 4200, "window": 6000, "fraction": 0.7, "basis": "exact"}
    handoff, reply = backend.store.append(
        thread,
        session.id,
        [
            NewMessage(role="handoff", content="<handoff-context>\nv1</handoff-context>\n"),
            NewMessage(role="assistant", content="ok", meta={"context": sample}),
        ],
    )
    review = ContextEdit(
        kind="handoff",
        summary="confirmed",
        seqs=[handoff.seq],
        placeholders={handoff.seq: "<handoff-context>\nv2</handoff-context>\n"},
        artifact={"next_step": "v2"},
    )
    backend.store.add_context_edit(
        session.id,
        review,
        NewMessage(
            role="event",
            content="confirmed",
            meta={"event": "handoff_review", "status": "confirmed"},
        ),
    )
    assert backend.store.context_edits(session.id) == [review]
    rows = backend.store.messages(session.id)
    assert rows[0].content.endswith("v1</handoff-context>\n")  # the original stays
    assert rows[1].meta["context"] == sample


def test_history_tools_refuse_another_threads_sessions(backend: Backend) -> None:
    from agent_core.errors import ToolInputError
    from agent_core.history import make_history_tools

    store = backend.store
    mine, theirs = backend.new_thread(), backend.new_thread()
    store.append(mine, store.current_session(mine).id, [user("kiwi plans of mine")])
    other = store.current_session(theirs)
    store.append(theirs, other.id, [user("kiwi secrets of theirs")])
    reset(store, theirs, other.id)  # theirs has sessions 1 and 2, mine only 1
    search, read = make_history_tools(store, mine)

    assert "theirs" not in search.invoke({"query": "kiwi"})
    assert "no stored message of session 1" not in search.invoke({"query": "kiwi", "session": 1})
    assert "theirs" not in read.invoke({"session": 1, "start": 1, "end": 5})
    with pytest.raises(ToolInputError, match="no session 2; its sessions are 1"):
        read.func(session=2, start=1)  # type: ignore[attr-defined]
    with pytest.raises(ToolInputError, match="no session 2"):
        search.func(query="kiwi", session=2)  # type: ignore[attr-defined]


def test_undo_reset_gives_back_exactly_the_thread_before_the_reset(backend: Backend) -> None:
    store = backend.store
    thread = backend.new_thread()
    first = store.current_session(thread)
    store.append(
        thread, first.id, [user("plan the parser"), NewMessage(role="assistant", content="planned")]
    )
    store.add_context_edit(first.id, ContextEdit(kind="compaction", summary="s", upto_seq=1))
    store.write_file(thread, "PLAN.md", "# plan")
    store.enqueue_pending(thread, "and the totals")
    before = snapshot(store, thread)
    second, rows = reset(store, thread, first.id)
    assert [r.content for r in rows] == ["h", "and the totals"]
    assert len(store.search_messages(thread, "totals")) == 1

    reopened = store.undo_reset(thread, second.id, handoff_path="HANDOFF-1.md")

    assert reopened == before["sessions"][-1]
    assert snapshot(store, thread) == before
    assert store.current_session(thread).id == first.id
    assert store.search_messages(thread, "totals") == []  # the index lost the row too
    [again] = store.deliver_pending(thread, first.id)  # the queue is intact
    assert again.content == "and the totals"


def test_undo_reset_is_refused_once_the_model_answered_or_for_an_older_session(
    backend: Backend,
) -> None:
    store = backend.store
    thread = backend.new_thread()
    first = store.current_session(thread)
    store.append(thread, first.id, [user("go")])
    with pytest.raises(StoreError, match="first session"):
        store.undo_reset(thread, first.id, handoff_path="HANDOFF-0.md")
    second, _ = reset(store, thread, first.id)
    with pytest.raises(StoreError, match="open session"):
        store.undo_reset(thread, first.id, handoff_path="HANDOFF-1.md")
    store.append(thread, second.id, [NewMessage(role="assistant", content="on it")])
    with pytest.raises(StoreError, match="answered"):
        store.undo_reset(thread, second.id, handoff_path="HANDOFF-1.md")
    assert store.current_session(thread).id == second.id


# forks --------------------------------------------------------------------------
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


def test_a_fork_copies_an_old_unsafe_name_under_its_portable_name(backend: Backend) -> None:
    store = backend.store
    source, cut = _two_sessions(backend)
    backend.plant_file(source, "..\\..\\evil.txt", "planted")
    target = backend.new_thread()
    store.fork_thread(source, target, before_seq=cut)
    assert store.list_files(target) == ["HANDOFF-1.md", "_/_/evil.txt", "notes.md"]
    assert store.read_file(target, "_/_/evil.txt") == "planted"
    assert "..\\..\\evil.txt" in store.list_files(source)  # the source is left as it was
