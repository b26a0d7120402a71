"""Repository functions the pages use: assistants, threads, timeline window, share links."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import func
from sqlmodel import select

from agent_core import ContextEdit, NewMessage
from chat_app.db import repo
from chat_app.db.engine import get_engine, read_session, write_session
from chat_app.db.models import (
    AssistantCreate,
    AssistantUpdate,
    ChatSession,
    ContextEditRow,
    Message,
    PendingMessage,
    ShareLink,
    ThreadFile,
    utcnow,
)
from chat_app.db.store import SqlStore
from tests.chat_app.db.backends import migrated_sqlite, pg_url  # noqa: F401


@pytest.fixture(params=["sqlite", "postgres"])
def engine(request: pytest.FixtureRequest, tmp_path: Path):  # type: ignore[no-untyped-def]
    if request.param == "sqlite":
        return get_engine(migrated_sqlite(tmp_path))
    return get_engine(request.getfixturevalue("pg_url"))


class Repo:
    """``repo`` with each call in its own short write transaction, as the services call it."""

    def __init__(self, engine) -> None:  # type: ignore[no-untyped-def]
        self.engine = engine

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        function = getattr(repo, name)

        def call(**kwargs):  # type: ignore[no-untyped-def]
            with write_session(self.engine) as session:
                return function(session=session, **kwargs)

        return call

    def count(self, table, *where) -> int:  # type: ignore[no-untyped-def]
        with read_session(self.engine) as session:
            return session.exec(select(func.count()).select_from(table).where(*where)).one()


@pytest.fixture
def db(engine) -> Repo:  # type: ignore[no-untyped-def]
    return Repo(engine)


def _thread(db: Repo, owner: str = "ana", title: str = "Chat") -> str:
    assistant = db.ensure_default_assistant()
    return db.create_thread(owner=owner, assistant_id=assistant.id, title=title).id


def _fill(engine, thread_id: str, sessions: int, per_session: int) -> SqlStore:  # type: ignore[no-untyped-def]
    store = SqlStore(engine)
    current = store.current_session(thread_id)
    for n in range(sessions):
        rows = [NewMessage(role="user", content=f"s{n}m{i}") for i in range(per_session)]
        store.append(thread_id, current.id, rows)
        if n + 1 < sessions:
            current, _ = store.commit_reset(
                thread_id,
                old_session_id=current.id,
                trigger="threshold",
                utilization=0.8,
                model="simulator",
                handoff={"n": n + 1},
                handoff_path=f"HANDOFF-{n + 1}.md",
                handoff_markdown="h",
                context=[],
            )
    return store


def test_default_assistant_is_created_once(db: Repo) -> None:
    first = db.ensure_default_assistant()
    assert (first.name, first.model, first.context_strategy) == ("Baton", "simulator", "auto")
    assert first.pinned_paths == ["PLAN.md", "contracts/**", "evaluator.*"]
    assert db.ensure_default_assistant().id == first.id
    assert len(db.list_assistants()) >= 1


def test_update_assistant_records_each_changed_field(db: Repo) -> None:
    assistant = db.create_assistant(data=AssistantCreate(name="Coder"))
    changes = AssistantUpdate(context_strategy="reset", reset_threshold=0.7, name="Coder")
    updated = db.update_assistant(assistant_id=assistant.id, changes=changes)
    assert updated is not None and (updated.context_strategy, updated.reset_threshold) == (
        "reset",
        0.7,
    )
    history = db.list_assistant_changes(assistant_id=assistant.id)
    assert sorted((c.field, c.previous, c.new) for c in history) == [
        ("context_strategy", "auto", "reset"),
        ("reset_threshold", 0.8, 0.7),
    ]
    assert db.update_assistant(assistant_id="missing", changes=changes) is None


def test_get_thread_hides_other_owners_threads(db: Repo) -> None:
    thread_id = _thread(db, owner="ana")
    assert db.get_thread(thread_id=thread_id, owner="ana") is not None
    assert db.get_thread(thread_id=thread_id, owner="bob") is None
    assert db.get_thread(thread_id="missing", owner="ana") is None
    assert db.get_thread(thread_id=thread_id, owner=None) is not None


def test_list_threads_newest_first_with_case_insensitive_search(db: Repo) -> None:
    owner = f"owner-{utcnow().timestamp()}"
    old = _thread(db, owner=owner, title="Refactor PARSER")
    new = _thread(db, owner=owner, title="Write docs 100%")
    _thread(db, owner="someone-else", title="parser too")
    assert [t.id for t in db.list_threads(owner=owner)] == [new, old]
    assert [t.id for t in db.list_threads(owner=owner, search="parser")] == [old]
    assert [t.id for t in db.list_threads(owner=owner, search="100%")] == [new]
    assert db.list_threads(owner=owner, search="0%d") == []
    db.touch_thread(thread_id=old)
    assert [t.id for t in db.list_threads(owner=owner)] == [old, new]
    renamed = db.rename_thread(thread_id=new, title="Docs")
    assert renamed is not None and renamed.title == "Docs"


def test_delete_thread_removes_every_row(engine, db: Repo) -> None:  # type: ignore[no-untyped-def]
    thread_id = _thread(db)
    store = _fill(engine, thread_id, sessions=2, per_session=2)
    store.write_file(thread_id, "PLAN.md", "p")
    store.enqueue_pending(thread_id, "q")
    session_ids = [s.id for s in store.sessions(thread_id)]
    store.add_context_edit(
        store.current_session(thread_id).id, ContextEdit(kind="compaction", summary="s")
    )
    db.create_share_link(thread_id=thread_id)
    assert db.delete_thread(thread_id=thread_id) is True
    for table, column in [
        (Message, Message.thread_id),
        (ChatSession, ChatSession.thread_id),
        (PendingMessage, PendingMessage.thread_id),
        (ThreadFile, ThreadFile.thread_id),
        (ShareLink, ShareLink.thread_id),
    ]:
        assert db.count(table, column == thread_id) == 0
    assert db.count(ContextEditRow, ContextEditRow.session_id.in_(session_ids)) == 0
    assert db.delete_thread(thread_id=thread_id) is False


def test_timeline_window_pages_backwards_in_ascending_order(engine, db: Repo) -> None:  # type: ignore[no-untyped-def]
    thread_id = _thread(db)
    _fill(engine, thread_id, sessions=3, per_session=10)
    window = db.timeline_window(thread_id=thread_id, limit=5)
    assert [m.seq for m in window] == [26, 27, 28, 29, 30]
    older = db.timeline_window(thread_id=thread_id, before_seq=26, limit=5)
    assert [m.seq for m in older] == [21, 22, 23, 24, 25]
    capped = db.timeline_window(thread_id=thread_id, limit=3, upto_seq=12)
    assert [m.seq for m in capped] == [10, 11, 12]


def test_session_index_gives_first_seq_per_session(engine, db: Repo) -> None:  # type: ignore[no-untyped-def]
    thread_id = _thread(db)
    _fill(engine, thread_id, sessions=3, per_session=10)
    index = db.session_index(thread_id=thread_id)
    assert [(e.number, e.first_seq) for e in index] == [(1, 1), (2, 11), (3, 21)]
    assert index[1].parent_id == index[0].id and index[1].handoff == {"n": 1}
    assert [e.number for e in db.session_index(thread_id=thread_id, upto_seq=15)] == [
        1,
        2,
    ]
    assert db.session_first_seq(session_id=index[2].id) == 21


def test_share_links_resolve_until_revoked_or_expired(engine, db: Repo) -> None:  # type: ignore[no-untyped-def]
    thread_id = _thread(db)
    store = _fill(engine, thread_id, sessions=1, per_session=4)
    link, token = db.create_share_link(thread_id=thread_id)
    assert link.snapshot_seq == 4 and token not in link.token_hash and len(link.token_hash) == 64
    resolved = db.resolve_share_token(token=token)
    assert resolved is not None and resolved.id == link.id
    store.append(
        thread_id, store.current_session(thread_id).id, [NewMessage(role="user", content="more")]
    )
    updated = db.update_share_snapshot(link_id=link.id)
    assert updated is not None and updated.snapshot_seq == 5
    expiring, expiring_token = db.create_share_link(
        thread_id=thread_id, expires_at=utcnow() + timedelta(hours=1)
    )
    assert db.resolve_share_token(token=expiring_token) is not None
    later = utcnow() + timedelta(hours=2)
    assert db.resolve_share_token(token=expiring_token, now=later) is None
    db.revoke_share_link(link_id=link.id)
    assert db.resolve_share_token(token=token) is None
    assert db.resolve_share_token(token="not-a-token") is None
    assert {x.id for x in db.list_share_links(thread_id=thread_id)} == {
        link.id,
        expiring.id,
    }
