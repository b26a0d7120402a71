"""Thread list and timeline loading for the pages (owner-checked)."""

from __future__ import annotations

from sqlmodel import Session

from agent_core import ConfigurationError, HandoffArtifact, build_context, model_info
from agent_core.handoff import handoff_filename
from agent_core.storage import RowMark
from agent_core.strategies import awaits_reply, effective_strategy, review_pending
from chat_app.db import repo
from chat_app.db.convert import stored_message
from chat_app.db.models import ImportedTranscript, Thread
from chat_app.db.replies import replaced_replies
from chat_app.services.conversation.threads.importing import imported_label, imported_labels
from chat_app.services.presentation.timeline import items_from_rows, model_label, session_chips
from chat_app.services.presentation.ui_events import TitleChanged
from chat_app.services.presentation.views import (
    AssistantChoice,
    MeterView,
    ThreadSummary,
    TimelineItem,
    TimelineView,
    WindowView,
)
from chat_app.services.runtime import runtime
from chat_app.services.runtime.backend import Backend
from chat_app.services.runtime.container import App
from chat_app.services.runtime.live import new_run_id

__all__ = [
    "list_threads",
    "list_assistant_choices",
    "create_thread",
    "rename_thread",
    "announce_title",
    "delete_thread",
    "load_timeline",
    "current_meter",
    "load_from_session",
    "load_window_at",
    "handoff_markdown",
    "owned_thread",
]

MAX_TITLE = 120


def _summary(thread: Thread, sessions: int = 1, label: str = "") -> ThreadSummary:
    return ThreadSummary(
        id=thread.id,
        title=thread.title,
        updated_at=thread.updated_at,
        session_count=sessions,
        model_label=label,
    )


def owned_thread(app: Backend, owner: str | None, thread_id: str) -> Thread | None:
    with app.read() as db:
        return repo.get_thread(session=db, thread_id=thread_id, owner=owner)


def list_threads(app: Backend, owner: str, search: str = "") -> list[ThreadSummary]:
    with app.read() as db:
        # A chat nothing was sent to (left by an older "New chat") is not listed.
        threads = repo.list_threads(
            session=db, owner=owner, search=search.strip() or None, with_messages=True
        )
        counts = repo.session_counts(session=db, thread_ids=[t.id for t in threads])
        assistants = repo.list_assistants(session=db)
        # With several assistants a chat is known by its assistant as well as by its model.
        models = {
            a.id: (f"{a.name} · " if len(assistants) > 1 else "") + model_label(a.model)
            for a in assistants
        }
        imported = imported_labels(session=db, thread_ids=[t.id for t in threads])
        return [
            _summary(t, counts.get(t.id, 1), imported.get(t.id) or models.get(t.assistant_id, ""))
            for t in threads
        ]


def list_assistant_choices(app: Backend) -> list[AssistantChoice]:
    """The assistants a new chat can start with, the default one first."""
    with app.write() as db:
        repo.ensure_default_assistant(session=db)
        return [
            AssistantChoice(id=a.id, name=a.name, model_label=model_label(a.model))
            for a in repo.list_assistants(session=db)
        ]


def create_thread(
    app: Backend, owner: str, title: str = "New chat", *, assistant_id: str | None = None
) -> ThreadSummary:
    """A new chat with ``assistant_id`` (the default assistant when it is None or gone)."""
    with app.write() as db:
        chosen = repo.get_assistant(session=db, assistant_id=assistant_id) if assistant_id else None
        assistant = chosen or repo.ensure_default_assistant(session=db)
        thread = repo.create_thread(
            session=db,
            owner=owner,
            assistant_id=assistant.id,
            title=(title.strip() or "New chat")[:MAX_TITLE],
        )
        return _summary(thread)


def rename_thread(app: Backend, owner: str, thread_id: str, title: str) -> ThreadSummary | None:
    if owned_thread(app, owner, thread_id) is None or not title.strip():
        return None
    with app.write() as db:
        thread = repo.rename_thread(
            session=db, thread_id=thread_id, title=title.strip()[:MAX_TITLE]
        )
        return _summary(thread) if thread else None


async def announce_title(app: App, thread_id: str, title: str) -> None:
    """Show a renamed chat's title in every tab on it, in any worker (the live channel),
    as a first message's naming reaches them inside its run."""
    await app.live.publish(thread_id, new_run_id(), TitleChanged(title=title))


def delete_thread(app: Backend, owner: str, thread_id: str) -> bool:
    if owned_thread(app, owner, thread_id) is None:
        return False
    with app.write() as db:
        return repo.delete_thread(session=db, thread_id=thread_id)


def misconfigured(exc: ConfigurationError) -> str:
    """What a chat says when its assistant's model setting cannot run."""
    return f"This chat's assistant cannot run: {exc}. An admin can fix its model on /admin."


def _meter(app: Backend, thread: Thread, db: Session) -> tuple[MeterView, str]:
    assistant = repo.get_assistant(
        session=db, assistant_id=thread.assistant_id
    ) or repo.ensure_default_assistant(session=db)
    setup, resolved = runtime.turn_setup(app, thread.id, assistant)
    the_store = setup.store
    sessions = the_store.sessions(thread.id)
    context = build_context(the_store, sessions[-1]) if sessions else []
    estimate = app.runner.measure(setup, context)
    policy = setup.policy
    info = model_info(setup.model_name, window_override=policy.window_override)
    meter = MeterView(
        tokens=estimate.tokens,
        window=estimate.window,
        fraction=estimate.fraction,
        basis=estimate.basis,
        compact_threshold=policy.compact_threshold,
        reset_threshold=policy.reset_threshold,
        strategy=policy.context_strategy,
        effective_strategy=effective_strategy(policy, info.default_strategy),
    )
    return meter, resolved.label


def current_meter(app: Backend, owner: str | None, thread_id: str) -> MeterView | None:
    """The meter of the owner's chat as a reload shows it: the open session's context
    measured now (None for a chat that is not the owner's, or whose model cannot run).
    A run's end reads it, so the live figure is the reload's, also after a reset."""
    with app.read() as db:
        thread = repo.get_thread(session=db, thread_id=thread_id, owner=owner)
        if thread is None:
            return None
        try:
            return _meter(app, thread, db)[0]
        except ConfigurationError:
            return None


def load_timeline(
    app: Backend,
    owner: str | None,
    thread_id: str,
    *,
    before_seq: int | None = None,
    limit: int = 100,
    upto_seq: int | None = None,
    with_meter: bool = True,
) -> TimelineView | None:
    """The last ``limit`` rows (before ``before_seq``) as items, the chips and the meter.

    ``None`` when the thread does not exist or is not ``owner``'s (the same for both).
    ``upto_seq`` cuts the thread at a share link's snapshot.
    """
    with app.read() as db:
        thread = repo.get_thread(session=db, thread_id=thread_id, owner=owner)
        if thread is None:
            return None
        rows = repo.with_whole_tool_calls(
            session=db,
            thread_id=thread_id,
            rows=repo.timeline_window(
                session=db,
                thread_id=thread_id,
                before_seq=before_seq,
                limit=limit,
                upto_seq=upto_seq,
            ),
        )
        sessions = repo.session_index(session=db, thread_id=thread_id, upto_seq=upto_seq)
        earliest = rows[0].seq if rows else None
        has_earlier = bool(rows) and bool(
            repo.timeline_window(
                session=db, thread_id=thread_id, before_seq=earliest, limit=1, upto_seq=upto_seq
            )
        )
        items = items_from_rows(
            [stored_message(r) for r in rows],
            sessions,
            replaced_replies(session=db, thread_id=thread_id),
        )
        # The newest window of the owner's page ends with what is still queued.
        queued = (
            []
            if before_seq is not None or upto_seq is not None
            else repo.undelivered_pending(session=db, thread_id=thread_id)
        )
        items += [
            TimelineItem(
                key=p.id,
                kind="message",
                role="user",
                content=p.content,
                queued=True,
                created_at=p.created_at,
            )
            for p in queued
        ]
        # The newest window also tells whether the open session's last message still waits
        # for a turn (delivered by a /handoff, or a process died before the reply): the page
        # answers it as it answers the queue. Never an imported (read-only) thread's.
        record = db.get(ImportedTranscript, thread_id)
        awaiting = (
            not queued
            and before_seq is None
            and upto_seq is None
            and bool(sessions)
            and _awaits_turn(rows, sessions[-1].id)
            and record is None
        )
        problem = ""
        try:
            meter, label = _meter(app, thread, db) if with_meter else (MeterView(), "")
        except ConfigurationError as exc:  # a bad model setting must not take the chat down
            meter, label, problem = MeterView(), "", misconfigured(exc)
        if record is not None:
            label = imported_label(record)
        chips = session_chips(sessions, earliest if has_earlier else None)
        return TimelineView(
            thread=_summary(thread, len(sessions) or 1, label),
            items=items,
            sessions=chips,
            has_earlier=has_earlier,
            earliest_seq=earliest,
            meter=meter,
            model_label=label,
            pending=len(queued),
            awaiting_reply=awaiting,
            problem=problem,
        )


def _awaits_turn(rows: list, open_session_id: str) -> bool:
    """Whether the open session's last user row in ``rows`` (the newest window) waits for a
    turn, and no handoff review holds it back. A window holding none of its rows from that
    user row on holds only later rows, a reply among them."""
    marks = [
        RowMark(row.seq, row.role, dict(row.meta or {}))
        for row in rows
        if row.session_id == open_session_id
    ]
    last = max((i for i, mark in enumerate(marks) if mark.role == "user"), default=None)
    return last is not None and awaits_reply(marks[last:]) and not review_pending(marks)


def load_from_session(
    app: Backend,
    owner: str | None,
    thread_id: str,
    session_number: int,
    *,
    current_earliest_seq: int,
    upto_seq: int | None = None,
) -> list[TimelineItem]:
    """Items from the start of session ``session_number`` up to what is already loaded."""
    with app.read() as db:
        if repo.get_thread(session=db, thread_id=thread_id, owner=owner) is None:
            return []
        sessions = repo.session_index(session=db, thread_id=thread_id, upto_seq=upto_seq)
        target = next((s for s in sessions if s.number == session_number), None)
        if target is None or target.first_seq is None or target.first_seq >= current_earliest_seq:
            return []
        span = current_earliest_seq - target.first_seq
        rows = repo.timeline_window(
            session=db,
            thread_id=thread_id,
            before_seq=current_earliest_seq,
            limit=span,
            upto_seq=upto_seq,
        )
        return items_from_rows(
            [stored_message(r) for r in rows],
            sessions,
            replaced_replies(session=db, thread_id=thread_id),
        )


def load_window_at(
    app: Backend,
    owner: str | None,
    thread_id: str,
    *,
    session_number: int | None = None,
    after_seq: int | None = None,
    limit: int = 100,
) -> WindowView | None:
    """A window of ``limit`` rows reading forward: from the start of session
    ``session_number`` (a jump from the chip bar), or after ``after_seq`` (scrolling down
    toward the newest rows). ``None`` for a thread that is not ``owner``'s."""
    with app.read() as db:
        if repo.get_thread(session=db, thread_id=thread_id, owner=owner) is None:
            return None
        sessions = repo.session_index(session=db, thread_id=thread_id)
        if session_number is not None:
            target = next((s for s in sessions if s.number == session_number), None)
            if target is None or target.first_seq is None:
                return WindowView(items=[])
            start = target.first_seq
        else:
            start = (after_seq or 0) + 1
        rows = repo.timeline_from(session=db, thread_id=thread_id, from_seq=start, limit=limit)
        # Whole tool calls at both ends: the next window then starts after the results.
        rows = repo.with_tool_results(
            session=db,
            thread_id=thread_id,
            rows=repo.with_whole_tool_calls(session=db, thread_id=thread_id, rows=rows),
        )
        has_later = bool(rows) and bool(
            repo.timeline_from(session=db, thread_id=thread_id, from_seq=rows[-1].seq + 1, limit=1)
        )
        items = items_from_rows(
            [stored_message(r) for r in rows],
            sessions,
            replaced_replies(session=db, thread_id=thread_id),
        )
        thread_start = sessions[0].first_seq if sessions else None
        has_earlier = bool(rows) and thread_start is not None and rows[0].seq > thread_start
        return WindowView(
            items=items,
            has_later=has_later,
            has_earlier=has_earlier,
            last_seq=rows[-1].seq if rows else start - 1,
        )


def handoff_markdown(
    app: Backend,
    owner: str | None,
    thread_id: str,
    session_number: int,
    *,
    upto_seq: int | None = None,
) -> tuple[str, str] | None:
    """(``HANDOFF-{n}.md``, markdown) of the handoff that started ``session_number``."""
    with app.read() as db:
        if repo.get_thread(session=db, thread_id=thread_id, owner=owner) is None:
            return None
        sessions = repo.session_index(session=db, thread_id=thread_id, upto_seq=upto_seq)
        target = next((s for s in sessions if s.number == session_number and s.handoff), None)
        if target is None:
            return None
        artifact = HandoffArtifact.model_validate(target.handoff)
        return handoff_filename(session_number - 1), artifact.to_markdown()
