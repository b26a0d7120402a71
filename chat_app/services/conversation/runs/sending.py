"""A message sent to a chat, run in this process (:func:`send_here`): checked, stored (or
queued while the thread is busy), answered; the page's events of that run."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncGenerator, Sequence
from typing import Any

from langchain_core.tools import BaseTool

from agent_core import ConfigurationError, MessageRejected, SessionRecord, TurnSetup
from agent_core.events import AcceptedEvent, DoneEvent, QueuedEvent
from agent_core.runtime import begin_start
from chat_app.services.conversation.runs.fits import (
    fits_or_raise,
    refusal,
    validate_message,
    with_offered_tools,
)
from chat_app.services.conversation.runs.stops import stoppable
from chat_app.services.conversation.runs.thread_runs import (
    assistant_for,
    title_from_first_message,
    touch,
)
from chat_app.services.conversation.threads import importing
from chat_app.services.conversation.threads.chats import misconfigured
from chat_app.services.presentation.run_events import Translator
from chat_app.services.presentation.ui_events import QueuedShown, Refused, TitleChanged, UiEvent
from chat_app.services.presentation.views import TimelineItem
from chat_app.services.runtime import runtime
from chat_app.services.runtime.container import App
from chat_app.services.runtime.run_stream import RunHandle, RunStream

__all__ = ["send_here"]


async def send_here(
    app: App,
    owner: str,
    thread_id: str,
    text: str,
    client_id: str | None = None,
    *,
    handle: RunHandle | None = None,
    after_unstored: bool = False,
) -> RunStream:
    """:func:`chat.send_message`'s run in this process, unrelayed: the run's events, with
    ``handle.owned`` set before the first when the thread is the owner's. ``after_unstored``:
    the tab's send before this one was settled without a message (a command, a refusal), so
    nothing is waited for."""
    begin_start()  # until the turn's first output: see agent_core.runtime._lanes
    # The reads and checks before the turn are one trip off the event loop: under load a
    # write waits for SQLite's lock (every tab of the worker would wait with it), and each
    # trip waits its turn on the loop when it comes back.
    prepared = await asyncio.to_thread(_prepare_send, app, owner, thread_id, text, client_id)
    if handle is not None:
        handle.owned = prepared.owned
    try:
        async with contextlib.aclosing(
            _send_prepared(app, prepared, thread_id, client_id, after_unstored)
        ) as events:
            async for event in events:
                yield event
    finally:
        app.send_order.settle(
            thread_id, client_id
        )  # refused or ended: the tab's next need not wait


@dataclasses.dataclass
class _Prepared:
    """What a send found before its turn: a refusal, or the run's setup (or why the
    assistant cannot run), and the chat's new title if this is its first message."""

    owned: bool = False
    refusal: Refused | None = None
    text: str = ""
    setup: TurnSetup | None = None
    label: str = ""
    misconfiguration: ConfigurationError | None = None
    thread: Any = None
    title: str | None = None
    sessions: list[SessionRecord] = dataclasses.field(default_factory=list)


def _prepare_send(
    app: App, owner: str, thread_id: str, text: str, client_id: str | None
) -> _Prepared:
    thread, assistant = assistant_for(app, owner, thread_id)
    owned = thread is not None
    try:
        text = validate_message(text)
    except MessageRejected as exc:
        return _Prepared(owned, refusal(str(exc), client_id, exc))
    if thread is None or assistant is None:
        return _Prepared(owned, refusal("This thread does not exist.", client_id))
    if importing.is_imported(app, thread_id):
        return _Prepared(owned, refusal(importing.READ_ONLY, client_id))
    try:
        setup, resolved = runtime.turn_setup(app, thread_id, assistant)
    except ConfigurationError as exc:
        return _Prepared(
            owned,
            text=text,
            misconfiguration=exc,
            title=title_from_first_message(app, thread, text),
        )
    prepared = _Prepared(
        owned,
        text=text,
        setup=setup,
        label=resolved.label,
        thread=thread,
        sessions=app.store.sessions(thread_id),
    )
    if setup.tool_loader is None:  # else checked once its MCP servers' tools are loaded
        prepared.refusal, prepared.title = _fits_and_title(app, setup, thread, text, client_id)
    return prepared


def _fits_and_title(
    app: App,
    setup: TurnSetup,
    thread: Any,
    text: str,
    client_id: str | None,
    offered: Sequence[BaseTool] = (),
) -> tuple[Refused | None, str | None]:
    """(a refusal of a message too large for the model, the chat's new title)."""
    try:
        fits_or_raise(setup, text, offered)
    except MessageRejected as exc:
        return refusal(str(exc), client_id, exc), None
    return None, title_from_first_message(app, thread, text)


async def _send_prepared(
    app: App,
    prepared: _Prepared,
    thread_id: str,
    client_id: str | None,
    after_unstored: bool = False,
) -> AsyncGenerator[UiEvent, None]:
    setup, text = prepared.setup, prepared.text
    if prepared.refusal is None and setup is not None and setup.tool_loader is not None:
        setup, offered = await with_offered_tools(setup)
        prepared.refusal, prepared.title = await asyncio.to_thread(
            _fits_and_title, app, setup, prepared.thread, text, client_id, offered
        )
    if prepared.refusal is not None:
        yield prepared.refusal
        return
    if prepared.title:
        yield TitleChanged(title=prepared.title)
    if prepared.misconfiguration is not None:
        # The assistant's model cannot run: keep the message (queued, answered once it is
        # fixed, when the chat is next opened) rather than lose it.
        record = await asyncio.to_thread(
            app.store.enqueue_pending, thread_id, text, client_id=client_id
        )
        if client_id:
            yield AcceptedEvent(pending_id=record.id, client_id=client_id)
        item = TimelineItem(
            key=record.id, kind="message", role="user", content=record.content, queued=True
        )
        yield QueuedShown(item=item)
        yield Refused(
            message=f"{misconfigured(prepared.misconfiguration)} "
            "Your message is kept and will be answered once it is fixed."
        )
        return
    assert setup is not None
    if not after_unstored:
        await app.send_order.after_predecessor(thread_id, client_id, app.store.has_client_message)
    translator = Translator(prepared.sessions, prepared.label)
    cancel = app.cancels.flag(thread_id)
    queued = done = False
    try:
        async with stoppable(app, thread_id, cancel, prepared.thread.stop_requests or 0):
            async for event in app.runner.submit(setup, text, cancel=cancel, client_id=client_id):
                if isinstance(event, AcceptedEvent):
                    app.send_order.settle(thread_id, client_id)  # the tab's next send may go
                queued = queued or isinstance(event, QueuedEvent)
                done = done or isinstance(event, DoneEvent)
                for ui_event in translator.translate(event):
                    yield ui_event
    except MessageRejected as exc:
        yield refusal(str(exc), client_id, exc)
    finally:
        # A message queued behind a running turn returns at once (no ``done``); the flag
        # belongs to that turn, which must stay stoppable. A run that ended is done with it,
        # even when it said some messages stay queued (a review waits, a cut turn first).
        if done or not queued:
            app.cancels.clear(thread_id, cancel)
        await asyncio.to_thread(touch, app, thread_id)
