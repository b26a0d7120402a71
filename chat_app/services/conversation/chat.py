"""Sending messages and running ``/handoff``: the runner's events translated for the page.

Yields the page's events (:data:`chat_app.services.presentation.ui_events.UiEvent`): the
run's rows, streamed words, resets, markers and meter, and this module's own refusals,
titles and ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import re
from collections.abc import AsyncIterator, Sequence
from functools import lru_cache
from typing import Any

from langchain_core.tools import BaseTool

from agent_core import (
    AcceptedEvent,
    ConfigurationError,
    DoneEvent,
    MessageRejected,
    MessageTooLarge,
    QueuedEvent,
    SessionRecord,
    TokenCounter,
    ToolLoad,
    TurnSetup,
    awaits_turn,
    begin_start,
    model_info,
    review_pending,
    validate_user_message,
)
from chat_app.db import repo
from chat_app.services.conversation import importing
from chat_app.services.conversation.stops import stop, stoppable
from chat_app.services.conversation.threads import misconfigured
from chat_app.services.conversation.titles import DEFAULT_TITLE, title_from_message
from chat_app.services.presentation.run_events import Translator
from chat_app.services.presentation.ui_events import (
    QueuedShown,
    Refused,
    TitleChanged,
    TooLarge,
    UiEvent,
)
from chat_app.services.presentation.views import TimelineItem
from chat_app.services.runtime import context_window, live, runtime, send_order, turn_process
from chat_app.services.runtime.backend import Backend
from chat_app.services.runtime.live import new_run_id
from chat_app.services.runtime.run_stream import Owned, RunStream, TurnExecutor

__all__ = [
    "send_message",
    "send_here",
    "resume_here",
    "executor",
    "InProcess",
    "Owned",
    "run_handoff",
    "resume_queued",
    "resume_detached",
    "FIRST_MESSAGE_GRACE_SECONDS",
    "stop",
    "validate_message",
    "parse_command",
    "new_run_id",
    "check_fits",
    "answer_waiting",
]

_log = logging.getLogger(__name__)


def validate_message(text: str) -> str:
    """The cleaned text, or :class:`MessageRejected` with a message for the user."""
    return validate_user_message(text)


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


async def _broadcast(
    app: Backend,
    owner: str,
    thread_id: str,
    run_id: str | None,
    events: AsyncIterator[UiEvent],
) -> AsyncIterator[UiEvent]:
    """A run's UI events, also relayed to the thread's other tabs (:func:`live.relay`).
    Only the thread's owner's runs are relayed."""
    if (await asyncio.to_thread(_assistant_for, app, owner, thread_id))[0] is None:
        relayed = events
    else:
        relayed = live.relay(thread_id, run_id or new_run_id(), events)
    async for event in relayed:
        yield event


def _assistant_for(app: Backend, owner: str, thread_id: str):
    with app.read() as db:
        thread = repo.get_thread(session=db, thread_id=thread_id, owner=owner)
        if thread is None:
            return None, None
        assistant = repo.get_assistant(session=db, assistant_id=thread.assistant_id)
        return thread, assistant


def _title_from_first_message(app: Backend, thread, text: str) -> str | None:
    """A new chat is named after its first message (the user can rename it)."""
    if thread.title != DEFAULT_TITLE:
        return None
    title = title_from_message(text)
    with app.write() as db:
        repo.rename_thread(session=db, thread_id=thread.id, title=title)
    return title


def _touch(app: Backend, thread_id: str) -> None:
    with app.write() as db:
        repo.touch_thread(session=db, thread_id=thread_id)


@lru_cache(maxsize=16)
def _counter(model_name: str) -> TokenCounter:
    return TokenCounter(model_name)


async def check_fits(app: Backend, owner: str, thread_id: str, text: str) -> None:
    """Refuse (:class:`MessageTooLarge`) a message too large for a fresh session of the chat's
    model: it would fill the context on its own, reset after reset, and never be answered.

    The room is the reset threshold of the model's window, less the system prompt, the
    definitions of every tool offered (the assistant's MCP servers' too) and the handoff a new
    session starts from.
    """
    thread, assistant = await asyncio.to_thread(_assistant_for, app, owner, thread_id)
    if thread is None or assistant is None:
        return
    try:
        setup, _ = await asyncio.to_thread(runtime.turn_setup, app, thread_id, assistant)
    except ConfigurationError:
        return  # the chat's banner says why; the message is kept as queued
    setup, offered = await _with_offered_tools(setup)
    _check_fits(setup, text, offered)


async def _with_offered_tools(setup: TurnSetup) -> tuple[TurnSetup, list[BaseTool]]:
    """The tools ``setup``'s MCP servers offer, loaded now so that the size check counts the
    tool definitions the model will be sent, and ``setup`` made to reuse that load (the turn's
    first call of the loader answers with it). A failing server is the turn's to report."""
    loader = setup.tool_loader
    if loader is None:
        return setup, []
    try:
        load = await loader()
    except Exception:  # the runner loads again and says why in the chat
        return setup, []
    taken = {tool.name for tool in setup.tools}
    offered = [tool for tool in load.tools if tool.name not in taken]
    first = [load]

    async def reuse() -> ToolLoad:
        return first.pop() if first else await loader()

    return dataclasses.replace(setup, tool_loader=reuse), offered


def _check_fits(setup: TurnSetup, text: str, extra_tools: Sequence[BaseTool] = ()) -> None:
    policy = setup.policy
    window = model_info(setup.model_name, window_override=policy.window_override).context_window
    counter = _counter(setup.model_name)
    # As /admin counts it, plus the MCP servers' tools the turn will offer.
    fixed = context_window.fixed_context_tokens(setup, counter, extra_tools=extra_tools)
    room = int(window * policy.reset_threshold) - fixed
    tokens = counter.count_text(text)
    if tokens > room:
        raise MessageTooLarge(
            f"This message is about {tokens:,} tokens, more than this assistant's model can take "
            f"in one session: {window:,} tokens of context, a reset at "
            f"{policy.reset_threshold:.0%}, and about {fixed:,} taken by the instructions, the "
            f"tools and a handoff leave room for {max(room, 0):,}. Shorten it or send it in parts.",
            size_bytes=len(text.encode("utf-8")),
            tokens=tokens,
            room_tokens=max(room, 0),
        )


def _refusal(
    message: str, client_id: str | None, rejected: MessageRejected | None = None
) -> Refused:
    said: dict[str, Any] = {"client_id": client_id} if client_id else {}
    if isinstance(rejected, MessageTooLarge):
        # The chat offers to attach the text as a file instead (it stays in the composer).
        said["too_large"] = TooLarge(
            size_bytes=rejected.size_bytes,
            tokens=rejected.tokens,
            room_tokens=rejected.room_tokens,
        )
    return Refused(message=message, **said)


async def send_message(
    app: Backend,
    owner: str,
    thread_id: str,
    text: str,
    client_id: str | None = None,
    run_id: str | None = None,
) -> AsyncIterator[UiEvent]:
    """Queue ``text`` on the thread and stream the run that delivers it.

    ``client_id`` is the browser's id for the message: sending it again (a retry after a lost
    acknowledgement or a crash) stores nothing twice. A refusal names it, so the browser
    forgets its copy (the text stays in the composer). The run's events are published
    under ``run_id`` to the thread's other tabs. In the app the run goes to the turn
    process (:mod:`chat_app.services.runtime.turn_process`); elsewhere it runs here.
    """
    run = executor(app).send(owner, thread_id, text, client_id)
    async with contextlib.aclosing(_relayed(thread_id, run_id, run)) as events:
        async for event in events:
            yield event


@dataclasses.dataclass(frozen=True)
class InProcess:
    """:class:`TurnExecutor` in this process, on ``app``: :func:`send_here`, :func:`resume_here`."""

    app: Backend

    def send(self, owner: str, thread_id: str, text: str, client_id: str | None) -> RunStream:
        return send_here(self.app, owner, thread_id, text, client_id)

    def resume(self, owner: str, thread_id: str, *, cut: bool) -> RunStream:
        return resume_here(self.app, owner, thread_id, cut=cut)


def executor(app: Backend) -> TurnExecutor:
    """Where this process runs a chat's turns: the turn process once it is started (the
    app's workers, on its own backend), else here on ``app`` (tests, scripts,
    ``BATON_TURN_PROCESS=off``)."""
    return turn_process.EXECUTOR if turn_process.serves() else InProcess(app)


async def _relayed(thread_id: str, run_id: str | None, run: RunStream) -> AsyncIterator[UiEvent]:
    async with contextlib.aclosing(run):
        match await anext(run, None):
            case None:
                return
            case Owned():  # only the owner's runs reach the thread's other tabs
                events = live.relay(thread_id, run_id or new_run_id(), run)
            case first:
                yield first
                events = run
        async with contextlib.aclosing(events):
            async for event in events:
                yield event


async def send_here(
    app: Backend, owner: str, thread_id: str, text: str, client_id: str | None = None
) -> RunStream:
    """:func:`send_message`'s run in this process, unrelayed: :class:`Owned` first when the
    thread is the owner's, then the run's events."""
    begin_start()  # until the turn's first output: see agent_core.runtime.lanes
    # The reads and checks before the turn are one trip off the event loop: under load a
    # write waits for SQLite's lock (every tab of the worker would wait with it), and each
    # trip waits its turn on the loop when it comes back.
    prepared = await asyncio.to_thread(_prepare_send, app, owner, thread_id, text, client_id)
    if prepared.owned:
        yield Owned()
    try:
        async with contextlib.aclosing(
            _send_prepared(app, prepared, thread_id, client_id)
        ) as events:
            async for event in events:
                yield event
    finally:
        send_order.settle(thread_id, client_id)  # refused or ended: the tab's next need not wait


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
    app: Backend, owner: str, thread_id: str, text: str, client_id: str | None
) -> _Prepared:
    thread, assistant = _assistant_for(app, owner, thread_id)
    owned = thread is not None
    try:
        text = validate_message(text)
    except MessageRejected as exc:
        return _Prepared(owned, _refusal(str(exc), client_id, exc))
    if thread is None or assistant is None:
        return _Prepared(owned, _refusal("This thread does not exist.", client_id))
    if importing.is_imported(app, thread_id):
        return _Prepared(owned, _refusal(importing.READ_ONLY, client_id))
    try:
        setup, resolved = runtime.turn_setup(app, thread_id, assistant)
    except ConfigurationError as exc:
        return _Prepared(
            owned,
            text=text,
            misconfiguration=exc,
            title=_title_from_first_message(app, thread, text),
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
    app: Backend,
    setup: TurnSetup,
    thread: Any,
    text: str,
    client_id: str | None,
    offered: Sequence[BaseTool] = (),
) -> tuple[Refused | None, str | None]:
    """(a refusal of a message too large for the model, the chat's new title)."""
    try:
        _check_fits(setup, text, offered)
    except MessageRejected as exc:
        return _refusal(str(exc), client_id, exc), None
    return None, _title_from_first_message(app, thread, text)


async def _send_prepared(
    app: Backend, prepared: _Prepared, thread_id: str, client_id: str | None
) -> AsyncIterator[UiEvent]:
    setup, text = prepared.setup, prepared.text
    if prepared.refusal is None and setup is not None and setup.tool_loader is not None:
        setup, offered = await _with_offered_tools(setup)
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
    await send_order.after_predecessor(thread_id, client_id, app.store.has_client_message)
    translator = Translator(prepared.sessions, prepared.label)
    cancel = runtime.cancel_flag(thread_id)
    queued = False
    try:
        async with stoppable(app, thread_id, cancel, prepared.thread.stop_requests or 0):
            async for event in app.runner.submit(setup, text, cancel=cancel, client_id=client_id):
                if isinstance(event, AcceptedEvent):
                    send_order.settle(thread_id, client_id)  # the tab's next send may go
                queued = queued or isinstance(event, QueuedEvent)
                for ui_event in translator.translate(event):
                    yield ui_event
    except MessageRejected as exc:
        yield _refusal(str(exc), client_id, exc)
    finally:
        # A queued message's call returns at once; the flag belongs to the running turn,
        # which must stay stoppable.
        if not queued:
            runtime.clear_cancel(thread_id, cancel)
        await asyncio.to_thread(_touch, app, thread_id)


async def resume_queued(
    app: Backend, owner: str, thread_id: str, run_id: str | None = None, *, cut: bool = False
) -> AsyncIterator[UiEvent]:
    """Deliver and answer messages left queued (the backend stopped before their turn), and
    a delivered message no turn took (a ``/handoff`` committed it into its new session, or
    the process died before the model's reply); with ``cut``, first answer the open
    session's unanswered message again (its turn was cut by a crash:
    :mod:`chat_app.services.conversation.cut_turns`).

    Nothing happens while this process already runs the thread; another process running it
    holds the thread's turn lock, so this waits for it and then finds the queue empty. In
    the app it runs in the turn process, as a send does.
    """
    run = executor(app).resume(owner, thread_id, cut=cut)
    async with contextlib.aclosing(_relayed(thread_id, run_id, run)) as events:
        async for event in events:
            yield event


async def resume_here(app: Backend, owner: str, thread_id: str, *, cut: bool = False) -> RunStream:
    """:func:`resume_queued`'s run in this process, unrelayed: nothing when no message of
    the owner's thread waits (and no ``cut`` turn is to be answered again), else
    :class:`Owned` and the run's events."""
    if app.runner.is_busy(thread_id):
        return
    begin_start()
    found = await asyncio.to_thread(_prepare_resume, app, owner, thread_id, cut)
    if found is None:
        return
    yield Owned()
    setup, label, sessions = found
    async with contextlib.aclosing(
        _resume_prepared(app, thread_id, setup, label, sessions, cut)
    ) as events:
        async for event in events:
            yield event


def _prepare_resume(
    app: Backend, owner: str, thread_id: str, cut: bool = False
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
            or review_pending(store.marks(store.current_session(thread_id).id))
        )
    ):
        return None  # (a review holds handed-over requests back: confirming answers them)
    thread, assistant = _assistant_for(app, owner, thread_id)
    if thread is None or assistant is None:
        return None
    try:
        setup, resolved = runtime.turn_setup(app, thread_id, assistant)
    except ConfigurationError:
        return None
    return setup, resolved.label, store.sessions(thread_id)


async def _resume_prepared(
    app: Backend,
    thread_id: str,
    setup: TurnSetup,
    label: str,
    sessions: list[SessionRecord],
    cut: bool = False,
) -> AsyncIterator[UiEvent]:
    if app.runner.is_busy(thread_id):  # a send started it meanwhile
        return
    translator = Translator(sessions, label)
    cancel = runtime.cancel_flag(thread_id)
    try:
        async with stoppable(app, thread_id, cancel):
            async for event in app.runner.drain(setup, cancel=cancel, resume=cut):
                for ui_event in translator.translate(event):
                    yield ui_event
    finally:
        runtime.clear_cancel(thread_id, cancel)
        await asyncio.to_thread(_touch, app, thread_id)


_detached: set[asyncio.Task] = set()


#: How long a new chat's first message waits for its page before the server answers it
#: anyway (the tab closed before it opened the chat). The page, when it opens, starts the
#: answer itself and streams it from its first word; this only catches a page that never came.
FIRST_MESSAGE_GRACE_SECONDS = 10.0


def resume_detached(
    app: Backend, owner: str, thread_id: str, *, after: float = 0.0, cut: bool = False
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
                if await live.is_running(thread_id):
                    return
            async for _ in resume_queued(app, owner, thread_id, cut=cut):
                pass
        except Exception:
            _log.exception("answering the queued messages of thread %s failed", thread_id)

    task = asyncio.create_task(answer(), name=f"baton-resume-{thread_id}")
    _detached.add(task)  # held until it ends: the loop keeps only weak references
    task.add_done_callback(_detached.discard)


async def resume_all_queued(app: Backend, skip: frozenset[str] = frozenset()) -> int:
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
    app: Backend,
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
        async for event in _broadcast(
            app, owner, thread_id, run_id, _run_handoff(app, owner, thread_id, focus, cancel)
        ):
            yield event
    finally:
        answer_waiting(app, owner, thread_id)


def answer_waiting(app: Backend, owner: str, thread_id: str) -> None:
    """After a run that holds the thread but answers nothing (``/handoff``, "Compact now",
    a regenerated reply): answer what arrived meanwhile, in a run no page owns (the turn
    process's, when there is one). Exactly once: the run checks again under the turn lock,
    and a sender still waiting for that lock finds it answered, or answers it itself."""
    resume_detached(app, owner, thread_id)


def _setup_and_sessions(app: Backend, thread_id: str, assistant: Any):
    """The thread's run setup, resolved model and sessions, in one trip off the loop."""
    setup, resolved = runtime.turn_setup(app, thread_id, assistant)
    return setup, resolved, app.store.sessions(thread_id)


async def _run_handoff(
    app: Backend, owner: str, thread_id: str, focus: str | None, cancel: asyncio.Event | None
) -> AsyncIterator[UiEvent]:
    thread, assistant = await asyncio.to_thread(_assistant_for, app, owner, thread_id)
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
    flag = cancel or runtime.cancel_flag(thread_id)
    try:
        async with stoppable(app, thread_id, flag):
            async for event in app.runner.handoff(setup, focus, cancel=flag):
                for ui_event in translator.translate(event):
                    yield ui_event
    finally:
        runtime.clear_cancel(thread_id, flag)
        await asyncio.to_thread(_touch, app, thread_id)
    yield DoneEvent()
