"""Messages left waiting, answered in this process (:func:`resume_here`): queued ones, a
delivered one no turn took, or a turn a crash cut."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator

from agent_core import ConfigurationError, SessionRecord, TurnSetup
from agent_core.runtime import awaits_turn, begin_start
from agent_core.storage import MARKERS
from agent_core.strategies import review_pending
from chat_app.services.conversation.runs.stops import stoppable
from chat_app.services.conversation.runs.thread_runs import assistant_for, touch
from chat_app.services.conversation.threads import importing
from chat_app.services.presentation.run_events import Translator
from chat_app.services.presentation.ui_events import UiEvent
from chat_app.services.runtime import runtime
from chat_app.services.runtime.container import App
from chat_app.services.runtime.run_stream import RunHandle, RunStream

__all__ = ["resume_here"]


async def resume_here(
    app: App,
    owner: str,
    thread_id: str,
    *,
    cut: bool = False,
    handle: RunHandle | None = None,
) -> RunStream:
    """:func:`chat.resume_queued`'s run in this process, unrelayed: nothing when no message of
    the owner's thread waits (and no ``cut`` turn is to be answered again), else the run's
    events, with ``handle.owned`` set before the first."""
    if app.runner.is_busy(thread_id):
        return
    begin_start()
    found = await asyncio.to_thread(_prepare_resume, app, owner, thread_id, cut)
    if found is None:
        return
    if handle is not None:
        handle.owned = True
    setup, label, sessions = found
    async with contextlib.aclosing(
        _resume_prepared(app, thread_id, setup, label, sessions, cut)
    ) as events:
        async for event in events:
            yield event


def _prepare_resume(
    app: App, owner: str, thread_id: str, cut: bool = False
) -> tuple[TurnSetup, str, list[SessionRecord]] | None:
    """The run setup, model label and sessions of the owner's thread when a message waits for a turn
    (queued, or delivered and not taken by any turn: :func:`awaits_turn`), or ``cut``, and
    its assistant can run (else the chat's banner says why and the message waits). An
    imported thread is read-only: its last message may be unanswered, and stays so."""
    store = app.store
    if (
        not cut
        and not store.pending(thread_id)
        and (
            importing.is_imported(app, thread_id)
            or not awaits_turn(store, thread_id)
            or review_pending(store.marks(store.current_session(thread_id).id, MARKERS))
        )
    ):
        return None  # (a review holds handed-over requests back: confirming answers them)
    thread, assistant = assistant_for(app, owner, thread_id)
    if thread is None or assistant is None:
        return None
    try:
        setup, resolved = runtime.turn_setup(app, thread_id, assistant)
    except ConfigurationError:
        return None
    return setup, resolved.label, store.sessions(thread_id)


async def _resume_prepared(
    app: App,
    thread_id: str,
    setup: TurnSetup,
    label: str,
    sessions: list[SessionRecord],
    cut: bool = False,
) -> AsyncGenerator[UiEvent, None]:
    if app.runner.is_busy(thread_id):  # a send started it meanwhile
        return
    translator = Translator(sessions, label)
    cancel = app.cancels.flag(thread_id)
    try:
        async with stoppable(app, thread_id, cancel):
            async for event in app.runner.drain(setup, cancel=cancel, resume=cut):
                for ui_event in translator.translate(event):
                    yield ui_event
    finally:
        app.cancels.clear(thread_id, cancel)
        await asyncio.to_thread(touch, app, thread_id)
