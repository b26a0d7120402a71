"""Runs a thread: delivers queued user messages, streams the agent, handles resets,
overflow, cancellation and the manual ``/handoff`` command.

Every user message goes through the store's pending queue first, so a message sent while
the thread is busy (running, or in the middle of a reset) is accepted at once and delivered
exactly once, in order: at the next model call, or as the first input of a new session.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, RemoveMessage
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from agent_core.accounting._calibration import ContextEstimator, FamilyRatios, TokenEstimate
from agent_core.context._build import build_context
from agent_core.errors import ContextOverflowError
from agent_core.events import (
    AcceptedEvent,
    DoneEvent,
    ErrorEvent,
    Event,
    MessageEvent,
    QueuedEvent,
    TokenEvent,
    WarningEvent,
)
from agent_core.redaction import known_secrets, redact_text
from agent_core.runtime import _commands as commands
from agent_core.runtime import _lanes as lanes
from agent_core.runtime._agent import build_agent
from agent_core.runtime._commands import user_error
from agent_core.runtime._coordinator import SessionCoordinator
from agent_core.runtime._streams import until_cancelled
from agent_core.runtime._streams import until_cancelled as _until_cancelled  # noqa: F401  (tests)
from agent_core.runtime._turn import TurnSetup
from agent_core.runtime._turn_start import (
    Opening,
    enter_turn_lock,
    lock_due_turn,
    open_turn,
    queue_and_open,
    take_turn_lock,
    turn_due,
)
from agent_core.storage._records import NewMessage
from agent_core.strategies._awaiting import TURN_FAILED, TURN_STOPPED, awaits_reply
from agent_core.validation import validate_user_message

__all__ = ["ThreadRunner"]

log = logging.getLogger(__name__)
_RECURSION_LIMIT = 2_000
REVIEW_WAITS = (
    "The handoff waits for your review: messages wait with it and go out once "
    "you confirm or discard it."
)
STOPPED_NOTE = "Stopped before a reply"


class ThreadRunner:
    """One per process. Keeps per-thread token calibration between turns."""

    def __init__(self, *, max_estimators: int = 512) -> None:
        self._active: set[str] = set()
        self._estimators: OrderedDict[tuple[str, str, int | None], ContextEstimator] = OrderedDict()
        self._max_estimators = max_estimators
        # A tokenizer ratio belongs to the model family, not to a thread: learned once for all.
        self._ratios = FamilyRatios()

    def is_busy(self, thread_id: str) -> bool:
        return thread_id in self._active

    def _idle(self, thread_id: str) -> None:
        """The thread's work here ended: its estimators keep what they learned, not the
        history and tools they counted (up to ``max_estimators`` whole contexts otherwise)."""
        self._active.discard(thread_id)
        for (estimated, _, _), estimator in self._estimators.items():
            if estimated == thread_id:
                estimator.release()

    def estimator(self, setup: TurnSetup) -> ContextEstimator:
        key = (setup.thread_id, setup.model_name, setup.policy.window_override)
        found = self._estimators.pop(key, None) or ContextEstimator(
            setup.model_name, window_override=setup.policy.window_override, ratios=self._ratios
        )
        self._estimators[key] = found
        while len(self._estimators) > self._max_estimators:
            self._estimators.popitem(last=False)
        return found

    def measure(self, setup: TurnSetup, messages: Sequence[BaseMessage]) -> TokenEstimate:
        """How full the thread's context is with ``messages`` (a chat's meter, read while the
        chat is open). A thread with no turn running here keeps the figures, not the
        messages: measured for a page, every chat opened since stayed in memory with its
        whole context (up to ``max_estimators`` of them) after its tabs had left."""
        estimator = self.estimator(setup)
        estimate = estimator.estimate(
            list(messages), system=setup.system_prompt, tools=list(setup.tools)
        )
        if not self.is_busy(setup.thread_id):
            estimator.release()
        return estimate

    # user messages -----------------------------------------------------------------------
    async def submit(
        self,
        setup: TurnSetup,
        text: str,
        *,
        cancel: asyncio.Event | None = None,
        client_id: str | None = None,
    ) -> AsyncIterator[Event]:
        """Queue ``text`` and run the thread until no queued message is left.

        Raises :class:`~agent_core.errors.MessageRejected` (before anything is stored) for
        input that cannot be accepted. If the thread is already running in this process the
        message is queued and a ``queued`` event is the only one yielded. With a ``client_id``
        an ``accepted`` event comes first; a re-send of a message already stored under it is
        not stored again, and one already delivered yields nothing more.
        """
        text = validate_user_message(text)
        if self.is_busy(setup.thread_id) or setup.tool_loader is not None:
            record = await asyncio.to_thread(
                setup.store.enqueue_pending, setup.thread_id, text, client_id=client_id
            )
            if client_id is not None:
                yield AcceptedEvent(pending_id=record.id, client_id=client_id)
                if record.delivered_session_id is not None:
                    return
            if self.is_busy(setup.thread_id):
                yield QueuedEvent(pending_id=record.id, content=text)
                return
            opening = None
        else:
            # Queued, locked and opened in one trip off the loop: under load each trip
            # waits its turn for a thread and for the loop, and the first words wait for all.
            self._active.add(setup.thread_id)  # a second send meanwhile queues behind it
            # The trip goes first (see agent_core.runtime._lanes); the turn counts as a start for the
            # others only once it holds the lock (``_turn``): this wait may be another
            # worker's whole turn.
            lanes.begin_start()
            try:
                abandoned = threading.Event()
                queued = await take_turn_lock(
                    queue_and_open,
                    setup,
                    text,
                    client_id,
                    self.estimator(setup),
                    [],
                    abandoned,
                    abandoned=abandoned,
                )
                record, opening = queued.record, queued.opening
            except BaseException:
                self._idle(setup.thread_id)
                lanes.end_start()
                raise
            if client_id is not None:
                try:
                    yield AcceptedEvent(pending_id=record.id, client_id=client_id)
                except BaseException:  # the caller stopped listening: no turn runs
                    if opening is not None:
                        await asyncio.to_thread(opening.lock.__exit__, None, None, None)
                        self._idle(setup.thread_id)
                    lanes.end_start()
                    raise
            if opening is None:
                lanes.end_start()
                self._idle(setup.thread_id)
                if client_id is not None and record.delivered_session_id is not None:
                    return
        async for event in self.drain(setup, cancel=cancel or asyncio.Event(), opening=opening):
            yield event

    async def drain(
        self,
        setup: TurnSetup,
        *,
        cancel: asyncio.Event,
        resume: bool = False,
        opening: Opening | None = None,
    ) -> AsyncIterator[Event]:
        """Run until the thread's queue is empty (re-checking after the lock is released).

        The first look also takes a message the open session holds that no turn took yet
        (:func:`~agent_core.runtime._turn_start.awaits_turn`: delivered by a ``/handoff``, a reset or
        a process that died before the model's reply; the session's handed-over requests
        after its handoff was reviewed). Later looks count only the queue: a turn that
        ended without a reply is not run again by this drain. With ``resume`` one turn runs
        even when nothing waits (the work a reset interrupted, after its review). While a
        handoff waits for review nothing runs: queued messages stay queued and a
        ``warning`` says why. ``opening``: the first turn's lock already taken and its
        session opened (``submit``).
        """
        thread_id = setup.thread_id
        self._active.add(thread_id)
        waits = idle = False
        unanswered = True
        try:
            # Each check and the lock are one trip off the loop: under load every trip
            # waits its turn there, and a new message's first words wait for all of them.
            # An opening's turn runs even if stopped meanwhile: its message is delivered, and
            # a stopped turn stores what it has (nothing), which lets the lock go as usual.
            while opening is not None or (not waits and not cancel.is_set()):
                if opening is not None:
                    lock = opening.lock
                else:
                    lock, waits = await take_turn_lock(lock_due_turn, setup, resume, unanswered)
                resume = unanswered = False
                if lock is None:
                    break
                try:
                    due = True
                    while due and (opening is not None or not cancel.is_set()):
                        async for event in self._turn(setup, cancel, opening):
                            yield event
                        opening = None
                        if cancel.is_set():
                            break
                        due, waits = await asyncio.to_thread(turn_due, setup)
                except BaseException:
                    idle = True
                    raise
                finally:
                    # A drain that ends here (stopped, closed, failed) is idle before it
                    # lets the lock go: a message sent meanwhile starts a run of its own,
                    # which waits for the lock, instead of being queued for this one,
                    # which would never look at the queue again.
                    if idle or cancel.is_set():
                        idle = True
                        self._idle(thread_id)
                    await asyncio.to_thread(lock.__exit__, None, None, None)
        finally:
            if not idle:
                self._idle(thread_id)
        if (
            waits
            and not cancel.is_set()
            and (await asyncio.to_thread(turn_due, setup, unanswered=True))[0]
        ):
            # The review was settled while this drain let go: the run answering it found
            # this drain still busy and left the queue to it.
            async for event in self.drain(setup, cancel=cancel):
                yield event
            return
        if waits:
            for record in await asyncio.to_thread(setup.store.pending, thread_id):
                yield QueuedEvent(pending_id=record.id, content=record.content)
            yield WarningEvent(message=REVIEW_WAITS, reason="review_pending")
        yield DoneEvent(cancelled=cancel.is_set())

    async def rerun(self, setup: TurnSetup, *, cancel: asyncio.Event) -> AsyncIterator[Event]:
        """Run one turn on the thread as it stands, with no new message: the model answers
        its context again (after the caller hid the reply to regenerate). Yields nothing but
        ``done`` when the thread is busy in this process."""
        thread_id = setup.thread_id
        if self.is_busy(thread_id):
            yield DoneEvent(cancelled=False, busy=True)
            return
        self._active.add(thread_id)
        lock = await self._turn_lock(setup)
        try:
            async for event in self._turn(setup, cancel):
                yield event
        finally:
            await asyncio.to_thread(lock.__exit__, None, None, None)
            self._idle(thread_id)
        yield DoneEvent(cancelled=cancel.is_set())

    async def _turn_lock(self, setup: TurnSetup) -> Any:
        """The thread's turn lock, entered off the loop. Cancelled while waiting for it, the
        thread is not left busy here and the lock goes back once taken."""
        try:
            return (await take_turn_lock(enter_turn_lock, setup)).lock
        except BaseException:
            self._idle(setup.thread_id)
            raise

    async def _turn(
        self, setup: TurnSetup, cancel: asyncio.Event, opening: Opening | None = None
    ) -> AsyncIterator[Event]:
        lanes.begin_turn()  # it goes first until the model's first output
        try:
            async for event in self._turn_events(setup, cancel, opening):
                if _first_output(event):
                    lanes.end_start()
                yield event
        finally:
            lanes.end_start()

    async def _turn_events(
        self, setup: TurnSetup, cancel: asyncio.Event, opening: Opening | None = None
    ) -> AsyncIterator[Event]:
        if opening is not None:
            coordinator, context, outbox = opening.coordinator, opening.context, opening.outbox
        else:
            outbox = []
            problems: list[str] = []
            if setup.tool_loader is not None:
                setup, problems = await _with_loaded_tools(setup, setup.tool_loader)
            coordinator, context = await asyncio.to_thread(
                open_turn, setup, self.estimator(setup), outbox.append, problems
            )
        for attempt in range(2):
            if attempt:
                context = await asyncio.to_thread(build_context, setup.store, coordinator.session)
            coordinator.adopt(context)
            while outbox:
                yield outbox.pop(0)
            try:
                async for event in self._stream(coordinator, context, cancel):
                    yield event
                return
            except ContextOverflowError as exc:
                coordinator.route_events(outbox.append)  # the graph's stream writer is gone
                if attempt:
                    message = redact_text(str(exc), known_secrets())
                    yield ErrorEvent(message=message)
                    for event in await asyncio.to_thread(_turn_ended, coordinator, message):
                        yield event
                    return
                async for event in self._recover_overflow(coordinator, context, outbox):
                    yield event
            except Exception as exc:
                log.exception("run of thread %s failed", setup.thread_id)
                message = user_error(exc)
                yield ErrorEvent(message=message)
                for event in await asyncio.to_thread(_turn_ended, coordinator, message):
                    yield event
                return

    async def _recover_overflow(self, coordinator, context, outbox) -> AsyncIterator[Event]:
        """The provider said the prompt is too long: apply the strategy, then retry once."""
        estimate = coordinator.measure(context)
        strategy = coordinator.setup.policy.context_strategy
        effective = coordinator.info.default_strategy if strategy == "auto" else strategy
        if effective == "compact" and await coordinator.compact(context, estimate) is not None:
            pass
        else:
            await coordinator.reset(
                context, trigger="overflow", utilization=max(estimate.fraction, 1.0)
            )
        while outbox:
            yield outbox.pop(0)

    async def _stream(
        self, coordinator: SessionCoordinator, context: list[BaseMessage], cancel: asyncio.Event
    ) -> AsyncIterator[Event]:
        agent = build_agent(coordinator)
        state: list[BaseMessage] = list(context)
        partial: list[str] = []
        stream = agent.astream(
            {"messages": context},
            stream_mode=["messages", "custom", "updates"],
            config={"recursion_limit": _RECURSION_LIMIT},
        )
        async for mode, chunk in until_cancelled(stream, cancel):
            if mode == "custom":
                yield chunk
            elif mode == "messages":
                message, meta = chunk
                if (
                    meta.get("langgraph_node") == "model"
                    and isinstance(message.content, str)
                    and message.content
                ):
                    partial.append(message.content)
                    yield TokenEvent(text=message.content)
            elif mode == "updates":
                for update in (chunk or {}).values():
                    _apply_update(state, update)
                    if any(
                        isinstance(m, AIMessage) for m in (update or {}).get("messages", []) or []
                    ):
                        partial.clear()
        if cancel.is_set():
            for event in self._persist_stopped(coordinator, state, "".join(partial)):
                yield event

    def _persist_stopped(self, coordinator, state, partial: str) -> list[Event]:
        outbox: list[Event] = []
        coordinator.route_events(outbox.append)
        coordinator.sync(state)
        if partial.strip():
            row = coordinator.store.append(
                coordinator.setup.thread_id,
                coordinator.session.id,
                [
                    NewMessage(
                        role="assistant",
                        content=partial,
                        model=coordinator.setup.model_name,
                        meta={"stopped": True},
                    )
                ],
            )[0]
            outbox.append(MessageEvent.of(row))
        elif awaits_reply(coordinator.store.tail_marks(coordinator.session.id)):
            # Stopped before the model said anything: the message had its turn (the user
            # stopped it), so opening the chat again must not answer it after all.
            coordinator.note_turn_end(TURN_STOPPED, STOPPED_NOTE)
        return outbox

    # commands (:mod:`._commands`) -----------------------------------------------------------
    def handoff(
        self, setup: TurnSetup, focus: str | None, *, cancel: asyncio.Event
    ) -> AsyncIterator[Event]:
        """``/handoff [focus]``: end the session now with a handoff; cancellable until commit."""
        return commands.handoff(self, setup, focus, cancel=cancel)

    def compact_now(self, setup: TurnSetup) -> AsyncIterator[Event]:
        """ "Compact now": summarize the open session's older part at once, whatever the
        thresholds say. Yields the ``compaction`` events and a ``compact`` status."""
        return commands.compact_now(self, setup)


def _turn_ended(coordinator: SessionCoordinator, reason: str) -> list[Event]:
    """Store the marker of a turn that failed (its events): the chat shows why after a
    reload too, and the message is not due again, so a failing provider is not retried in a
    loop (:mod:`agent_core.strategies._awaiting`). A store that fails too is only logged: the
    drain that ran the turn does not run it again either way."""
    outbox: list[Event] = []
    coordinator.route_events(outbox.append)
    try:
        coordinator.note_turn_end(TURN_FAILED, f"The turn ended with an error: {reason}")
    except Exception:
        log.exception("storing the failure of thread %s failed", coordinator.setup.thread_id)
    return outbox


def _first_output(event: Event) -> bool:
    """The model's first words or stored reply (or the turn's failure): the turn has started."""
    match event:
        case MessageEvent(row=row):
            return row.role in ("assistant", "tool")
        case TokenEvent() | ErrorEvent():
            return True
        case _:
            return False


async def _with_loaded_tools(setup: TurnSetup, loader) -> tuple[TurnSetup, list[str]]:
    """``setup`` with the ``loader``'s tools added, and its problems. A loader that fails
    outright is a problem too: the turn runs with the tools it has."""
    try:
        load = await loader()
    except Exception as exc:  # a broken tool source must not take the turn down
        log.exception("loading extra tools for thread %s failed", setup.thread_id)
        return setup, [f"Extra tools could not be loaded: {user_error(exc)}"]
    taken = {tool.name for tool in setup.tools}
    added = [tool for tool in load.tools if tool.name not in taken]
    problems = list(load.problems) + [
        f"The tool {tool.name} was left out: a built-in tool has that name."
        for tool in load.tools
        if tool.name in taken
    ]
    return dataclasses.replace(setup, tools=[*setup.tools, *added], tool_loader=None), problems


def _apply_update(state: list[BaseMessage], update: Any) -> None:
    if not isinstance(update, dict):
        return
    for message in update.get("messages", []) or []:
        if isinstance(message, RemoveMessage) and message.id == REMOVE_ALL_MESSAGES:
            state.clear()
        elif isinstance(message, BaseMessage):
            state.append(message)
