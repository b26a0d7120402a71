"""What every run of a chat starts and ends with: its thread and assistant, the chat's
name from its first message, the touch that moves it up the list, and the relay of its events
to the thread's other tabs (the app's live channel, :meth:`LiveChannel.relay`)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator

from chat_app.db import repo
from chat_app.services.conversation.threads.titles import DEFAULT_TITLE, title_from_message
from chat_app.services.presentation.ui_events import UiEvent
from chat_app.services.runtime.backend import Backend
from chat_app.services.runtime.container import App
from chat_app.services.runtime.live import new_run_id
from chat_app.services.runtime.run_stream import RunHandle, RunStream

__all__ = ["assistant_for", "title_from_first_message", "touch", "broadcast", "relayed"]


def assistant_for(app: Backend, owner: str, thread_id: str):
    """The owner's thread and its assistant; (None, None) when the thread is not theirs."""
    with app.read() as db:
        thread = repo.get_thread(session=db, thread_id=thread_id, owner=owner)
        if thread is None:
            return None, None
        assistant = repo.get_assistant(session=db, assistant_id=thread.assistant_id)
        return thread, assistant


def title_from_first_message(app: Backend, thread, text: str) -> str | None:
    """A new chat is named after its first message (the user can rename it)."""
    if thread.title != DEFAULT_TITLE:
        return None
    title = title_from_message(text)
    with app.write() as db:
        repo.rename_thread(session=db, thread_id=thread.id, title=title)
    return title


def touch(app: Backend, thread_id: str) -> None:
    """The chat ran: it moves to the top of the chat list."""
    with app.write() as db:
        repo.touch_thread(session=db, thread_id=thread_id)


async def broadcast(
    app: App,
    owner: str,
    thread_id: str,
    run_id: str | None,
    events: AsyncIterator[UiEvent],
) -> AsyncIterator[UiEvent]:
    """A run's UI events, also relayed to the thread's other tabs (:meth:`LiveChannel.relay`).
    Only the thread's owner's runs are relayed."""
    if (await asyncio.to_thread(assistant_for, app, owner, thread_id))[0] is None:
        relayed = events
    else:
        relayed = app.live.relay(thread_id, run_id or new_run_id(), events)
    async for event in relayed:
        yield event


async def relayed(
    app: App, thread_id: str, run_id: str | None, run: RunStream, handle: RunHandle
) -> AsyncGenerator[UiEvent, None]:
    """``run``'s events; relayed to the thread's other tabs when its ``handle`` says, by its
    first event, that the thread is the sender's (a run with no event is relayed nowhere)."""
    async with contextlib.aclosing(run):
        first = await anext(run, None)
        if first is None:
            return
        events = _from(first, run)
        if handle.owned:  # only the owner's runs reach the thread's other tabs
            events = app.live.relay(thread_id, run_id or new_run_id(), events)
        async with contextlib.aclosing(events):
            async for event in events:
                yield event


async def _from(first: UiEvent, run: RunStream) -> AsyncGenerator[UiEvent, None]:
    """``first``, then the rest of ``run``."""
    yield first
    async for event in run:
        yield event
