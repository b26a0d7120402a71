"""Data access for the app's pages: assistants, threads, the timeline window.

Every function takes the SQLModel ``session`` as a keyword argument and commits its own
writes. Call the writing functions inside :func:`chat_app.db.engine.write_session` (a short
transaction that takes SQLite's write lock up front, so concurrent writers queue instead of
failing with "database is locked") and the reading ones inside ``read_session``. Share-link functions
are defined in :mod:`chat_app.db.sharing`, the admin sign-in counts in :mod:`chat_app.db.sign_in`;
both are re-exported here.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete, func, or_, update
from sqlmodel import Session, col, select

from chat_app.db.models import (
    Assistant,
    AssistantChange,
    AssistantCreate,
    AssistantMcpServer,
    AssistantUpdate,
    ChatSession,
    ContextEditRow,
    ImportedTranscript,
    Message,
    PendingMessage,
    SessionIndexEntry,
    ShareLink,
    Thread,
    ThreadFile,
    TranscriptReplay,
    TurnLease,
    utcnow,
)
from chat_app.db.sharing import (
    create_share_link,
    list_share_links,
    resolve_share_token,
    revoke_share_link,
    update_share_snapshot,
)
from chat_app.db.sign_in import (
    add_sign_in_link,
    clear_sign_in_failures,
    get_sign_in_counts,
    lock_sign_in_counts,
    record_sign_in_failure,
    take_sign_in_link,
)

__all__ = [
    "DEFAULT_ASSISTANT_NAME",
    "ensure_default_assistant",
    "thread_assistant",
    "create_assistant",
    "get_assistant",
    "list_assistants",
    "update_assistant",
    "delete_assistant",
    "count_threads",
    "thread_for_client_message",
    "list_assistant_changes",
    "create_thread",
    "get_thread",
    "list_threads",
    "rename_thread",
    "delete_thread",
    "touch_thread",
    "timeline_window",
    "session_index",
    "session_first_seq",
    "session_counts",
    # share links live in chat_app.db.sharing; re-exported so callers need one module
    "create_share_link",
    "update_share_snapshot",
    "revoke_share_link",
    "list_share_links",
    "resolve_share_token",
    # admin sign-in failure counts live in chat_app.db.sign_in
    "lock_sign_in_counts",
    "get_sign_in_counts",
    "record_sign_in_failure",
    "clear_sign_in_failures",
    "add_sign_in_link",
    "take_sign_in_link",
]

DEFAULT_ASSISTANT_NAME = "Baton"


# assistants -------------------------------------------------------------------
def first_assistant(*, session: Session) -> Assistant | None:
    """The oldest assistant (the default one), if any."""
    return session.exec(select(Assistant).order_by(col(Assistant.created_at))).first()


def ensure_default_assistant(*, session: Session) -> Assistant:
    """The oldest assistant, creating "Baton" on the simulator model when there is none."""
    existing = first_assistant(session=session)
    if existing is not None:
        return existing
    return create_assistant(session=session, data=AssistantCreate(name=DEFAULT_ASSISTANT_NAME))


def create_assistant(*, session: Session, data: AssistantCreate) -> Assistant:
    """Store a new assistant."""
    assistant = Assistant.model_validate(data)
    session.add(assistant)
    session.commit()
    return assistant


def get_assistant(*, session: Session, assistant_id: str) -> Assistant | None:
    return session.get(Assistant, assistant_id)


def thread_assistant(*, session: Session, thread_id: str, owner: str | None) -> Assistant | None:
    """The assistant of the owner's thread, in one query (None as :func:`get_thread` would
    find no thread): read after every reply of every open tab."""
    query = (
        select(Assistant)
        .join(Thread, col(Thread.assistant_id) == col(Assistant.id))
        .where(col(Thread.id) == thread_id)
    )
    if owner is not None:
        query = query.where(col(Thread.owner) == owner)
    return session.exec(query).first()


def list_assistants(*, session: Session) -> list[Assistant]:
    """All assistants, oldest first (the default one leads)."""
    return list(session.exec(select(Assistant).order_by(col(Assistant.created_at))))


def update_assistant(
    *, session: Session, assistant_id: str, changes: AssistantUpdate
) -> Assistant | None:
    """Apply the set fields of ``changes``; one AssistantChange row per value that changed.

    Returns None when the assistant does not exist.
    """
    assistant = session.get(Assistant, assistant_id)
    if assistant is None:
        return None
    now = utcnow()
    changed = False
    for field, new in changes.model_dump(exclude_unset=True).items():
        previous = getattr(assistant, field)
        if previous == new:
            continue
        changed = True
        session.add(
            AssistantChange(
                assistant_id=assistant_id, field=field, previous=previous, new=new, changed_at=now
            )
        )
        setattr(assistant, field, new)
    if changed:
        assistant.updated_at = now
        session.add(assistant)
        session.commit()
    return assistant


def delete_assistant(*, session: Session, assistant_id: str, move_to: str) -> int | None:
    """Delete the assistant; its threads move to ``move_to``. Returns how many moved.

    None (nothing changed) when either assistant is missing or they are the same one. Its
    MCP servers and settings history go with it; one transaction.
    """
    if (
        assistant_id == move_to
        or session.get(Assistant, move_to) is None
        or session.get(Assistant, assistant_id) is None
    ):
        return None
    moved = session.exec(
        update(Thread).where(col(Thread.assistant_id) == assistant_id).values(assistant_id=move_to)
    ).rowcount
    for table in (AssistantMcpServer, AssistantChange):
        session.exec(delete(table).where(table.assistant_id == assistant_id))  # type: ignore[attr-defined]
    session.exec(delete(Assistant).where(col(Assistant.id) == assistant_id))
    session.commit()
    return int(moved or 0)


def count_threads(*, session: Session, assistant_id: str) -> int:
    """How many threads run on the assistant."""
    return session.exec(
        select(func.count()).select_from(Thread).where(Thread.assistant_id == assistant_id)
    ).one()


def list_assistant_changes(*, session: Session, assistant_id: str) -> list[AssistantChange]:
    """An assistant's settings history, newest first."""
    query = (
        select(AssistantChange)
        .where(AssistantChange.assistant_id == assistant_id)
        .order_by(col(AssistantChange.changed_at).desc())
    )
    return list(session.exec(query))


# threads ------------------------------------------------------------------------
def create_thread(
    *, session: Session, owner: str, assistant_id: str, title: str = "New chat"
) -> Thread:
    """A new, empty thread (its first session is opened by the store on first use)."""
    thread = Thread(owner=owner, assistant_id=assistant_id, title=title)
    session.add(thread)
    session.commit()
    return thread


def thread_for_client_message(*, session: Session, owner: str, client_id: str) -> str | None:
    """The owner's thread that already holds the message the browser sent as ``client_id``."""
    return session.exec(
        select(PendingMessage.thread_id)
        .join(Thread, col(Thread.id) == col(PendingMessage.thread_id))
        .where(PendingMessage.client_id == client_id, Thread.owner == owner)
    ).first()


def get_thread(*, session: Session, thread_id: str, owner: str | None) -> Thread | None:
    """The thread, or None when it is missing or belongs to someone other than ``owner``.

    Both cases look the same on purpose: a URL must not reveal that a thread exists.
    ``owner=None`` skips the check (server-side jobs).
    """
    thread = session.get(Thread, thread_id)
    if thread is None or (owner is not None and thread.owner != owner):
        return None
    return thread


def list_threads(
    *,
    session: Session,
    owner: str,
    search: str | None = None,
    limit: int = 100,
    with_messages: bool = False,
) -> list[Thread]:
    """The owner's threads, most recently active first; ``search`` matches titles, any case.

    ``with_messages`` leaves out threads nothing was ever sent to (stored or queued).
    """
    query = select(Thread).where(Thread.owner == owner)
    if with_messages:
        query = query.where(or_(col(Thread.next_seq) > 1, col(Thread.next_pending_seq) > 1))
    if search and search.strip():
        query = query.where(col(Thread.title).icontains(search.strip(), autoescape=True))
    query = query.order_by(col(Thread.updated_at).desc(), col(Thread.id)).limit(limit)
    return list(session.exec(query))


def rename_thread(*, session: Session, thread_id: str, title: str) -> Thread | None:
    thread = session.get(Thread, thread_id)
    if thread is None:
        return None
    thread.title = title
    thread.updated_at = utcnow()
    session.add(thread)
    session.commit()
    return thread


def touch_thread(*, session: Session, thread_id: str) -> None:
    """Mark the thread as just active (the store does this itself on every new message):
    one statement, as it runs after every turn in SQLite's single write lock."""
    session.execute(update(Thread).where(col(Thread.id) == thread_id).values(updated_at=utcnow()))
    session.commit()


def request_stop(*, session: Session, thread_id: str) -> bool:
    """Count one Stop on the thread (an atomic increment). False if it does not exist."""
    result = session.exec(
        update(Thread)
        .where(col(Thread.id) == thread_id)
        .values(stop_requests=col(Thread.stop_requests) + 1)
    )
    session.commit()
    return bool(result.rowcount)


def stop_counts(*, session: Session, thread_ids: Sequence[str]) -> dict[str, int]:
    """How often Stop was pressed on each of the threads that exist."""
    if not thread_ids:
        return {}
    rows = session.exec(
        select(Thread.id, Thread.stop_requests).where(col(Thread.id).in_(list(thread_ids)))
    ).all()
    return {thread_id: count or 0 for thread_id, count in rows}


def delete_thread(*, session: Session, thread_id: str) -> bool:
    """Delete the thread and every row that belongs to it. False if it did not exist.

    Children are deleted explicitly rather than relying on ON DELETE CASCADE alone, so the
    result does not depend on SQLite's foreign-key pragma.
    """
    if session.get(Thread, thread_id) is None:
        return False
    session_ids = select(ChatSession.id).where(ChatSession.thread_id == thread_id)
    session.exec(delete(ContextEditRow).where(col(ContextEditRow.session_id).in_(session_ids)))
    for table in (
        Message,
        PendingMessage,
        ThreadFile,
        ShareLink,
        TurnLease,
        ImportedTranscript,
        TranscriptReplay,
    ):
        session.exec(delete(table).where(table.thread_id == thread_id))  # type: ignore[attr-defined]
    # Parent links point inside the thread; clear them so sessions delete in any order.
    session.exec(
        ChatSession.__table__.update()
        .where(ChatSession.thread_id == thread_id)
        .values(parent_id=None)
    )
    session.exec(delete(ChatSession).where(col(ChatSession.thread_id) == thread_id))
    session.exec(delete(Thread).where(col(Thread.id) == thread_id))
    session.commit()
    return True


# timeline -----------------------------------------------------------------------
def timeline_window(
    *,
    session: Session,
    thread_id: str,
    before_seq: int | None = None,
    limit: int = 100,
    upto_seq: int | None = None,
) -> list[Message]:
    """The last ``limit`` messages with ``seq < before_seq`` and ``seq <= upto_seq``, in
    ascending seq (served by the unique (thread_id, seq) index: a backwards range scan)."""
    query = select(Message).where(Message.thread_id == thread_id)
    if before_seq is not None:
        query = query.where(Message.seq < before_seq)
    if upto_seq is not None:
        query = query.where(Message.seq <= upto_seq)
    rows = list(session.exec(query.order_by(col(Message.seq).desc()).limit(limit)))
    rows.reverse()
    return rows


def timeline_from(
    *,
    session: Session,
    thread_id: str,
    from_seq: int,
    limit: int = 100,
    upto_seq: int | None = None,
) -> list[Message]:
    """The first ``limit`` messages with ``seq >= from_seq`` (and ``<= upto_seq``), ascending."""
    query = select(Message).where(Message.thread_id == thread_id, Message.seq >= from_seq)
    if upto_seq is not None:
        query = query.where(Message.seq <= upto_seq)
    return list(session.exec(query.order_by(col(Message.seq)).limit(limit)))


def with_whole_tool_calls(
    *, session: Session, thread_id: str, rows: list[Message]
) -> list[Message]:
    """``rows`` reaching back to the assistant row whose tool calls its first rows answer,
    so a window never starts with a tool result whose call is not shown."""
    if not rows or rows[0].role != "tool":
        return rows
    caller = session.exec(
        select(Message.seq)
        .where(
            Message.thread_id == thread_id, Message.seq < rows[0].seq, Message.role == "assistant"
        )
        .order_by(col(Message.seq).desc())
        .limit(1)
    ).first()
    if caller is None:
        return rows
    earlier = session.exec(
        select(Message)
        .where(Message.thread_id == thread_id, Message.seq >= caller, Message.seq < rows[0].seq)
        .order_by(col(Message.seq))
    )
    return [*earlier, *rows]


def with_tool_results(
    *, session: Session, thread_id: str, rows: list[Message], upto_seq: int | None = None
) -> list[Message]:
    """``rows`` reaching on to the results of the tool calls its last rows make, so a window
    never ends between a call and its result."""
    if not rows or not (rows[-1].role == "tool" or rows[-1].tool_calls):
        return rows
    query = select(Message).where(Message.thread_id == thread_id, Message.seq > rows[-1].seq)
    if upto_seq is not None:
        query = query.where(Message.seq <= upto_seq)
    following = []
    for row in session.exec(query.order_by(col(Message.seq)).limit(64)):
        if row.role != "tool":
            break
        following.append(row)
    return [*rows, *following]


def _first_seq_subquery(upto_seq: int | None):
    # Correlated min(seq) per session: one seek on (session_id, seq) per session instead
    # of grouping every message of the thread.
    query = select(func.min(Message.seq)).where(Message.session_id == ChatSession.id)
    if upto_seq is not None:
        query = query.where(Message.seq <= upto_seq)
    return query.correlate(ChatSession).scalar_subquery()


def session_index(
    *, session: Session, thread_id: str, upto_seq: int | None = None
) -> list[SessionIndexEntry]:
    """Every session of the thread, by number, with the seq of its first row.

    With ``upto_seq`` (a share snapshot) only sessions with a row at or before it are listed.
    """
    first_seq = _first_seq_subquery(upto_seq).label("first_seq")
    query = (
        select(ChatSession, first_seq)
        .where(ChatSession.thread_id == thread_id)
        .order_by(col(ChatSession.number))
    )
    entries = []
    for row, first in session.exec(query):
        if upto_seq is not None and first is None:
            continue
        entries.append(SessionIndexEntry.model_validate(row, update={"first_seq": first}))
    return entries


def session_first_seq(*, session: Session, session_id: str) -> int | None:
    """The seq of the session's first row, or None when it has none yet."""
    query = select(func.min(Message.seq)).where(Message.session_id == session_id)
    return session.exec(query).one()


def user_seqs(*, session: Session, session_id: str) -> list[int]:
    """The seqs of the session's user messages, in order: where its turns start."""
    query = (
        select(Message.seq)
        .where(Message.session_id == session_id, Message.role == "user")
        .order_by(col(Message.seq))
    )
    return list(session.exec(query))


def session_counts(*, session: Session, thread_ids: list[str]) -> dict[str, int]:
    """Number of sessions of each thread (one grouped query, for the thread list)."""
    if not thread_ids:
        return {}
    query = (
        select(ChatSession.thread_id, func.count())
        .where(col(ChatSession.thread_id).in_(thread_ids))
        .group_by(ChatSession.thread_id)
    )
    return {thread_id: count for thread_id, count in session.exec(query)}


def undelivered_pending(*, session: Session, thread_id: str) -> list[PendingMessage]:
    """A thread's queued messages not yet delivered into a session, in send order."""
    query = (
        select(PendingMessage)
        .where(PendingMessage.thread_id == thread_id)
        .where(col(PendingMessage.delivered_session_id).is_(None))
        .order_by(col(PendingMessage.seq))
    )
    return list(session.exec(query))


def threads_with_pending(*, session: Session) -> list[Thread]:
    """Threads holding undelivered queued messages (left behind by a crash or a restart)."""
    waiting = select(PendingMessage.thread_id).where(
        col(PendingMessage.delivered_session_id).is_(None)
    )
    return list(session.exec(select(Thread).where(col(Thread.id).in_(waiting))))
