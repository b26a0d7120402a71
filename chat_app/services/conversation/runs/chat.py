"""A chat's runs, as the page starts them: sending a message, answering what waits, and
``/handoff``; each streams the page's events
(:data:`chat_app.services.presentation.ui_events.UiEvent`) and is relayed to the thread's
other tabs.

Where a run executes is the :class:`TurnExecutor`'s choice: the turn process beside the web
worker, or this process (:class:`InProcess`: :mod:`.sending`, :mod:`.resuming`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import re
from collections.abc import AsyncIterator
from typing import Any

from agent_core import ConfigurationError
from agent_core.events import AcceptedEvent, DoneEvent
from chat_app.db import repo
from chat_app.services.conversation.runs.fits import check_fits, validate_message
from chat_app.services.conversation.runs.resuming import resume_here
from chat_app.services.conversation.runs.sending import send_here
from chat_app.services.conversation.runs.stops import stop, stoppable
from chat_app.services.conversation.runs.thread_runs import assistant_for, broadcast, relayed, touch
from chat_app.services.conversation.threads import chat_list, importing
from chat_app.services.conversation.threads.chats import misconfigured
from chat_app.services.presentation.run_events import Translator
from chat_app.services.presentation.ui_events import (
    ItemShown,
    QueuedShown,
    Refused,
    UiEvent,
)
from chat_app.services.runtime import runtime
from chat_app.services.runtime.container import App
from chat_app.services.runtime.live import new_run_id
from chat_app.services.runtime.run_stream import RunHandle, RunStream, TurnExecutor

__all__ = [
    "send_message",
    "send_here",
    "resume_here",
    "executor",
    "InProcess",
    "RunHandle",
    "run_handoff",
    "resume_queued",
    "resume_detached",
    "resume_all_queued",
    "FIRST_MESSAGE_GRACE_SECONDS",
    "stop",
    "validate_message",
    "parse_command",
    "COMMANDS",
    "new_run_id",
    "check_fits",
    "answer_waiting",
]

_log = logging.getLogger(__name__)

# A send's events that say its message is stored (or queued): the chat list changed (the
# title a first message gives comes before, and is read with it).
STORED = (AcceptedEvent, QueuedShown, ItemShown)


COMMANDS = "/handoff [focus]: end this session now with a handoff (optionally focused)"
_COMMAND_WORD = re.compile(r"^/([A-Za-z][\w-]*)(?:\s|$)")


def parse_command(text: str) -> tuple[str, str | None] | None:
    """``("handoff", focus)`` for ``/handoff [focus]``, ``("unknown", name)`` for another
    ``/word`` (not sent to the agent: a typo of a command should not become a message);
    None for ordinary messages, including ones that start with a path like ``/usr/bin``.
    A message starting with a space is never a command."""
    if text[:1] != "/":
        return None
    stripped = text.strip()
    if stripped == "/handoff" or stripped.startswith("/handoff "):
        focus = stripped[len("/handoff") :].strip()
        return "handoff", focus or None
    word = _COMMAND_WORD.match(stripped)
    return ("unknown", word.group(1)) if word else None


async def send_message(
    app: App,
    owner: str,
    thread_id: str,
    text: str,
    client_id: str | None = None,
    run_id: str | None = None,
    *,
    after_unstored: bool = False,
) -> AsyncIterator[UiEvent]:
    """Queue ``text`` on the thread and stream the run that delivers it.

    ``client_id`` is the browser's id for the message: sending it again (a retry after a lost
    acknowledgement or a crash) stores nothing twice. A refusal names it, so the browser
    forgets its copy (the text stays in the composer). The run's events are published
    under ``run_id`` to the thread's other tabs. In the app the run goes to the turn
    process (:mod:`chat_app.services.runtime.turn_process`); elsewhere it runs here.
    ``after_unstored``: the tab's previous send was settled without a message (a command,
    a refusal): this one does not wait for it (:mod:`chat_app.services.runtime.send_order`).
    A send of a message whose earlier send still runs here gets that one's acknowledgement
    and starts no run (:class:`~chat_app.services.runtime.send_order.SendsInFlight`).
    """
    async with app.sends_in_flight.joined(owner, thread_id, client_id) as earlier:
        if earlier is not None:
            yield earlier
            return
        handle = RunHandle()
        run = executor(app).send(
            owner, thread_id, text, client_id, handle=handle, after_unstored=after_unstored
        )
        listed = False
        async with contextlib.aclosing(relayed(app, thread_id, run_id, run, handle)) as events:
            async for event in events:
                if isinstance(event, AcceptedEvent):
                    app.sends_in_flight.accepted(owner, thread_id, event)
                if not listed and isinstance(event, STORED):
                    # The chat has a message now (a chat nothing was sent to is not listed)
                    # and perhaps its first message's title: every tab of the owner reads
                    # its list.
                    listed = True
                    await chat_list.announce(app, owner)
                yield event


@dataclasses.dataclass(frozen=True)
class InProcess:
    """:class:`TurnExecutor` in this process, on ``app``: :func:`send_here`, :func:`resume_here`."""

    app: App

    def send(
        self,
        owner: str,
        thread_id: str,
        text: str,
        client_id: str | None,
        *,
        handle: RunHandle,
        after_unstored: bool = False,
    ) -> RunStream:
        return send_here(
            self.app,
            owner,
            thread_id,
            text,
            client_id,
            handle=handle,
            after_unstored=after_unstored,
        )

    def resume(self, owner: str, thread_id: str, *, cut: bool, handle: RunHandle) -> RunStream:
        return resume_here(self.app, owner, thread_id, cut=cut, handle=handle)


def executor(app: App) -> TurnExecutor:
    """Where ``app`` runs a chat's turns: its turn process once it is started (the app's
    workers, on its own backend), else here on ``app`` (tests, scripts,
    ``BATON_TURN_PROCESS=off``)."""
    return app.turn_process if app.turn_process.serves() else InProcess(app)


async def resume_queued(
    app: App, owner: str, thread_id: str, run_id: str | None = None, *, cut: bool = False
) -> AsyncIterator[UiEvent]:
    """Deliver and answer messages left queued (the backend stopped before their turn), and
    a delivered message no turn took (a ``/handoff`` committed it into its new session, or
    the process died before the model's reply); with ``cut``, first answer the open
    session's unanswered message again (its turn was cut by a crash:
    :mod:`chat_app.services.conversation.runs.cut_turns`).

    Nothing happens while this process already runs the thread; another process running it
    holds the thread's turn lock, so this waits for it and then finds the queue empty. In
    the app it runs in the turn process, as a send does.
    """
    handle = RunHandle()
    run = executor(app).resume(owner, thread_id, cut=cut, handle=handle)
    async with contextlib.aclosing(relayed(app, thread_id, run_id, run, handle)) as events:
        async for event in events:
            yield event


_detached: set[asyncio.Task] = set()


#: How long a new chat's first message waits for its page before the server answers it
#: anyway (the tab closed before it opened the chat). The page, when it opens, starts the
#: answer itself and streams it from its first word; this only catches a page that never came.
FIRST_MESSAGE_GRACE_SECONDS = 10.0


def resume_detached(
    app: App, owner: str, thread_id: str, *, after: float = 0.0, cut: bool = False
) -> None:
    """Answer the thread's queued messages in a task of the server's own, which no page owns.

    A chat page that finds queued messages when it loads (a new chat's first message, or
    messages left by a crash) must not run the turn as part of its load: Reflex cancels a
    page's unfinished on_load chain when the page loads again, so a reload would cut the
    turn off and leave the message unanswered. The tabs on the thread follow this run on
    the live channel, like any other tab's run, and Stop reaches it as any turn.

    With ``after``, the task first waits that long and then answers only what still waits
    with no run of the thread going (a run elsewhere already answers it): a new chat's
    first message is answered even when no page ever opens the chat. ``cut``: see
    :func:`resume_queued`.
    """

    async def answer() -> None:
        try:
            if after:
                await asyncio.sleep(after)
                if await app.live.is_running(thread_id):
                    return
            async for _ in resume_queued(app, owner, thread_id, cut=cut):
                pass
        except Exception:
            _log.exception("answering the queued messages of thread %s failed", thread_id)

    task = asyncio.create_task(answer(), name=f"baton-resume-{thread_id}")
    _detached.add(task)  # held until it ends: the loop keeps only weak references
    task.add_done_callback(_detached.discard)


async def resume_all_queued(app: App, skip: frozenset[str] = frozenset()) -> int:
    """At start-up: answer every thread's undelivered queued messages; returns how many
    threads. ``skip``: threads a resume of a cut turn answers (its run takes their queue
    after the cut message)."""
    with app.read() as db:
        waiting = [
            (t.owner, t.id) for t in repo.threads_with_pending(session=db) if t.id not in skip
        ]
    for owner, thread_id in waiting:
        try:
            async for _ in resume_queued(app, owner, thread_id):
                pass
        except Exception:  # one thread's failure must not keep the others waiting
            _log.exception("resuming the queued messages of thread %s failed", thread_id)
    return len(waiting)


async def run_handoff(
    app: App,
    owner: str,
    thread_id: str,
    focus: str | None,
    cancel: asyncio.Event | None = None,
    run_id: str | None = None,
) -> AsyncIterator[UiEvent]:
    """``/handoff [focus]`` on the thread; ``cancel`` (or :func:`stop`) cancels it.

    A message sent meanwhile (from another tab, or a worker) was queued, and the commit
    delivered it into the new session; it is answered once the handoff is over, by a run
    every tab follows (:func:`answer_waiting`)."""
    try:
        async for event in broadcast(
            app, owner, thread_id, run_id, _run_handoff(app, owner, thread_id, focus, cancel)
        ):
            yield event
    finally:
        answer_waiting(app, owner, thread_id)


def answer_waiting(app: App, owner: str, thread_id: str) -> None:
    """After a run that holds the thread but answers nothing (``/handoff``, "Compact now",
    a regenerated reply): answer what arrived meanwhile, in a run no page owns (the turn
    process's, when there is one). Exactly once: the run checks again under the turn lock,
    and a sender still waiting for that lock finds it answered, or answers it itself."""
    resume_detached(app, owner, thread_id)


def _setup_and_sessions(app: App, thread_id: str, assistant: Any):
    """The thread's run setup, resolved model and sessions, in one trip off the loop."""
    setup, resolved = runtime.turn_setup(app, thread_id, assistant)
    return setup, resolved, app.store.sessions(thread_id)


async def _run_handoff(
    app: App, owner: str, thread_id: str, focus: str | None, cancel: asyncio.Event | None
) -> AsyncIterator[UiEvent]:
    thread, assistant = await asyncio.to_thread(assistant_for, app, owner, thread_id)
    if thread is None or assistant is None:
        yield Refused(message="This thread does not exist.")
        return
    if await asyncio.to_thread(importing.is_imported, app, thread_id):
        yield Refused(message=importing.READ_ONLY)
        yield DoneEvent()
        return
    try:
        setup, resolved, sessions = await asyncio.to_thread(
            _setup_and_sessions, app, thread_id, assistant
        )
    except ConfigurationError as exc:
        yield Refused(message=misconfigured(exc))
        yield DoneEvent()
        return
    translator = Translator(sessions, resolved.label)
    flag = cancel or app.cancels.flag(thread_id)
    try:
        async with stoppable(app, thread_id, flag):
            async for event in app.runner.handoff(setup, focus, cancel=flag):
                for ui_event in translator.translate(event):
                    yield ui_event
    finally:
        app.cancels.clear(thread_id, flag)
        await asyncio.to_thread(touch, app, thread_id)
    yield DoneEvent()
