"""Regenerate the last reply, keeping the earlier one, and choose which reply the model sees.

A regenerated reply is not deleted: a ``ContextEdit(kind="reply")`` hides its rows from the
model (``agent_core.context._build.apply_edits``) and the timeline shows them dimmed as an earlier
reply. Choosing an earlier reply undoes the edit that hid it and hides the current one.
Only the last question of the open session has replies to regenerate or choose among.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

from agent_core import ConfigurationError, ContextEdit, StoredMessage, StoreError
from chat_app import errors
from chat_app.db import replies as db_replies
from chat_app.services.conversation.runs.chat import answer_waiting
from chat_app.services.conversation.runs.stops import stoppable
from chat_app.services.conversation.runs.thread_runs import assistant_for, broadcast, touch
from chat_app.services.conversation.threads import importing
from chat_app.services.conversation.threads.chats import misconfigured
from chat_app.services.presentation.run_events import Translator
from chat_app.services.presentation.ui_events import Refused, RowsReplaced, UiEvent
from chat_app.services.runtime import runtime
from chat_app.services.runtime.container import App

__all__ = [
    "ReplyRefused",
    "regenerate",
    "choose_reply",
    "replaced_seqs",
    "replaced_replies",
    "reply_groups",
]


class ReplyRefused(errors.Refused):
    """Why the reply cannot be regenerated or chosen now (shown to the user as is)."""

    default_code = "reply_refused"


def reply_groups(
    rows: Sequence[StoredMessage], edits: Sequence[ContextEdit]
) -> tuple[int | None, list[tuple[int, ...]], int]:
    """The last question of a session (its seq), its replies (each the seqs of its
    assistant and tool rows, oldest first) and the index of the one the model sees (-1: none).
    Pure: decided from the stored rows and edits alone."""
    asked = [r for r in rows if r.role == "user" and not r.meta.get("carried_over_from")]
    if not asked:
        return None, [], -1
    question = asked[-1].seq
    after = [r.seq for r in rows if r.seq > question and r.role in ("assistant", "tool")]
    replies = [e for e in edits if e.kind == "reply" and e.seqs and min(e.seqs) > question]
    hidden = {seq for e in replies if not e.undone for seq in e.seqs}
    shown = tuple(seq for seq in after if seq not in hidden)
    groups = sorted({tuple(e.seqs) for e in replies} | ({shown} if shown else set()))
    return question, groups, groups.index(shown) if shown else -1


def replaced_seqs(app: App, thread_id: str) -> set[int]:
    """Rows of the thread's replies the model does not see (for the timeline to dim)."""
    with app.read() as db:
        return db_replies.replaced_seqs(session=db, thread_id=thread_id)


def replaced_replies(app: App, thread_id: str) -> list[tuple[int, ...]]:
    """The thread's earlier replies, each as the seqs of its rows (one "Use this reply" each)."""
    with app.read() as db:
        return db_replies.replaced_replies(session=db, thread_id=thread_id)


async def _idle(app: App, thread_id: str) -> None:
    if await asyncio.to_thread(importing.is_imported, app, thread_id):
        raise ReplyRefused(importing.READ_ONLY, code="read_only")
    store = app.store
    if app.is_busy(thread_id) or await app.live.is_running(thread_id):
        raise ReplyRefused(
            "The agent is working; wait for it to finish (or stop it) first.", code="agent_working"
        )
    if await asyncio.to_thread(store.pending, thread_id):
        raise ReplyRefused(
            "Messages are waiting to be answered; regenerate after them.", code="messages_waiting"
        )


async def regenerate(
    app: App, owner: str, thread_id: str, run_id: str | None = None
) -> AsyncIterator[UiEvent]:
    """Hide the last reply from the model and stream a new answer to the same question.
    The first event, ``replaced``, names the rows of the reply now kept as an earlier one.
    Refusals come as ``error`` events."""
    try:
        await _idle(app, thread_id)  # before the relay, which marks this very run as running
    except ReplyRefused as exc:
        yield Refused(message=str(exc))
        return
    try:
        async for event in broadcast(
            app, owner, thread_id, run_id, _regenerate(app, owner, thread_id)
        ):
            yield event
    finally:
        answer_waiting(app, owner, thread_id)  # a message sent while it ran


async def _regenerate(app: App, owner: str, thread_id: str) -> AsyncIterator[UiEvent]:
    thread, assistant = assistant_for(app, owner, thread_id)
    if thread is None or assistant is None:
        yield Refused(message="This chat does not exist.")
        return
    try:
        setup, resolved = runtime.turn_setup(app, thread_id, assistant)
    except ConfigurationError as exc:
        yield Refused(message=misconfigured(exc))
        return
    store = app.store
    session = store.current_session(thread_id)
    question, groups, shown = reply_groups(
        store.messages(session.id), store.context_edits(session.id)
    )
    if question is None:
        yield Refused(message="There is no reply to regenerate yet.")
        return
    if shown >= 0:
        store.add_context_edit(
            session.id, ContextEdit(kind="reply", summary="", seqs=list(groups[shown]))
        )
        yield RowsReplaced(seqs=list(groups[shown]))
    translator = Translator(store.sessions(thread_id), resolved.label)
    cancel = app.cancels.flag(thread_id)
    try:
        async with stoppable(app, thread_id, cancel):
            async for event in app.runner.rerun(setup, cancel=cancel):
                for ui_event in translator.translate(event):
                    yield ui_event
    finally:
        app.cancels.clear(thread_id, cancel)
        touch(app, thread_id)


async def choose_reply(app: App, owner: str, thread_id: str, seq: int) -> list[tuple[int, ...]]:
    """Make the earlier reply holding row ``seq`` the one the model sees (the current one
    is kept as an earlier reply); returns the earlier replies now. Raises ReplyRefused."""
    if assistant_for(app, owner, thread_id)[0] is None:
        raise ReplyRefused("This chat does not exist.", code="chat_gone")
    await _idle(app, thread_id)
    store = app.store
    session = store.current_session(thread_id)
    edits = store.context_edits(session.id)
    _, groups, shown = reply_groups(store.messages(session.id), edits)
    chosen = next((g for g in groups if seq in g), None)
    if chosen is None:
        raise ReplyRefused("Only a reply to the last message can be chosen.", code="not_last_reply")
    if shown >= 0 and groups[shown] == chosen:
        return replaced_replies(app, thread_id)
    try:
        for position, edit in enumerate(edits):
            if edit.kind == "reply" and not edit.undone and tuple(edit.seqs) == chosen:
                store.undo_context_edit(session.id, position)
        if shown >= 0:
            store.add_context_edit(
                session.id, ContextEdit(kind="reply", summary="", seqs=list(groups[shown]))
            )
    except StoreError as exc:
        raise ReplyRefused(str(exc), code="store_failed") from None
    await app.live.resync(thread_id)  # the chat's other tabs dim the other reply too
    return replaced_replies(app, thread_id)
