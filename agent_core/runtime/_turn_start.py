"""How a turn starts: the thread's turn lock taken off the event loop, and the turn opened
(its queued messages delivered, the model's context built), in as few trips as it can.

Every trip off the loop waits its turn for a worker thread and then for the loop, and under
load a new message's first words wait for all of them: a send queues its message, takes
the lock and opens the turn in one trip (:func:`queue_and_open`). A lock is taken in a
worker thread because the wait may be another worker's whole turn; a run cancelled while
its thread waits gives the lock back as soon as the thread has it.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import functools
import threading
from collections.abc import Callable
from typing import Any, NamedTuple

from langchain_core.messages import BaseMessage

from agent_core.accounting._calibration import ContextEstimator
from agent_core.events import Event, QueuedEvent
from agent_core.runtime._coordinator import SessionCoordinator
from agent_core.runtime._turn import TurnSetup
from agent_core.storage._ports import SessionStore
from agent_core.storage._records import MARKERS, PendingRecord
from agent_core.strategies._awaiting import awaits_reply
from agent_core.strategies._reset_control import review_pending

__all__ = [
    "Locked",
    "Opening",
    "Queued",
    "awaits_turn",
    "enter_turn_lock",
    "lock_due_turn",
    "open_turn",
    "queue_and_open",
    "take_turn_lock",
    "turn_due",
    "turn_waits",
]


class Locked(NamedTuple):
    """The thread's turn lock, entered (None when no turn is due), and whether a handoff
    waits for review (then nothing runs)."""

    lock: Any
    waits: bool = False


@dataclasses.dataclass(frozen=True)
class Opening:
    """A turn made ready in the trip that queued its message: the thread's turn lock
    (entered), the session opened with the queue delivered, the model's context, and the
    events that opening emitted."""

    lock: Any
    coordinator: SessionCoordinator
    context: list[BaseMessage]
    outbox: list[Event]


@dataclasses.dataclass(frozen=True)
class Queued:
    """What :func:`queue_and_open` did: the message's queue record, and the turn it opened
    (None when no turn is due here, or the message was delivered before: a re-send)."""

    record: PendingRecord
    opening: Opening | None

    @property
    def lock(self) -> Any:
        return self.opening.lock if self.opening is not None else None


def _review_waits(setup: TurnSetup) -> bool:
    session = setup.store.current_session(setup.thread_id)
    return review_pending(setup.store.marks(session.id, MARKERS))


def awaits_turn(store: SessionStore, thread_id: str) -> bool:
    """The open session's last user message was delivered but no turn took it yet (see
    :mod:`agent_core.strategies._awaiting`): a ``/handoff`` or "Compact now" held the thread
    when it arrived, or the process died between its delivery and the model's reply."""
    return awaits_reply(store.tail_marks(store.current_session(thread_id).id))


def turn_waits(store: SessionStore, thread_id: str) -> bool:
    """Whether anything waits for a turn: a queued message, or a delivered one no turn took."""
    return bool(store.pending(thread_id)) or awaits_turn(store, thread_id)


def turn_due(setup: TurnSetup, *, unanswered: bool = False) -> tuple[bool, bool]:
    """(a turn is due, a handoff waits for review): a message is queued (or, with
    ``unanswered``, the open session holds one no turn took), and nothing holds it back."""
    store, thread_id = setup.store, setup.thread_id
    if not store.pending(thread_id) and not (unanswered and awaits_turn(store, thread_id)):
        return False, False
    waits = _review_waits(setup)
    return not waits, waits


def lock_due_turn(setup: TurnSetup, resume: bool, unanswered: bool = False) -> Locked:
    """The thread's turn lock, entered, when a turn is due (``resume``, a message queued or,
    with ``unanswered``, one delivered that no turn took), checked again under the lock."""
    store, thread_id = setup.store, setup.thread_id
    while resume or store.pending(thread_id) or (unanswered and awaits_turn(store, thread_id)):
        lock = store.turn_lock(thread_id)
        lock.__enter__()
        try:
            if resume:
                waits = _review_waits(setup)
                due = not waits
            else:
                due, waits = turn_due(setup, unanswered=unanswered)
        except BaseException as error:
            lock.__exit__(type(error), error, error.__traceback__)
            raise
        if due:
            return Locked(lock)
        lock.__exit__(None, None, None)
        if waits:
            return Locked(None, waits=True)
        resume = False
    return Locked(None)


def enter_turn_lock(setup: TurnSetup) -> Locked:
    lock = setup.store.turn_lock(setup.thread_id)
    lock.__enter__()
    return Locked(lock)


def open_turn(
    setup: TurnSetup, estimator: ContextEstimator, emit: Any, problems: list[str]
) -> tuple[SessionCoordinator, list[BaseMessage]]:
    """A turn's session, its queued messages delivered (and the tool problems noted after
    them: a reload shows them), and the context the model starts from: one trip off the loop.
    A turn that answers a cut turn's message once more answers it first: the queue stays
    queued until the turn's next model call, or the next turn
    (:func:`~agent_core.strategies._awaiting.answers_first`)."""
    coordinator = SessionCoordinator(setup, estimator=estimator, emit=emit)
    if coordinator.answers_first():
        for record in setup.store.pending(setup.thread_id):
            emit(QueuedEvent(pending_id=record.id, content=record.content))
    else:
        coordinator.deliver_pending()
    for problem in problems:
        coordinator.note_problem(problem)
    return coordinator, coordinator.opening_context()


def queue_and_open(
    setup: TurnSetup,
    text: str,
    client_id: str | None,
    estimator: ContextEstimator,
    outbox: list[Event],
    abandoned: threading.Event,
) -> Queued:
    """Queue ``text``; then, unless it was already delivered (a re-send), take the turn lock
    when a turn is due and open the turn, its events going to ``outbox``. A send
    ``abandoned`` while it waited for the lock leaves its message queued."""
    record = setup.store.enqueue_pending(setup.thread_id, text, client_id=client_id)
    if client_id is not None and record.delivered_session_id is not None:
        return Queued(record, None)
    # A run elsewhere may have delivered it meanwhile (a /handoff commits the queue into its
    # new session and runs no turn): then it is due as an unanswered message.
    lock = lock_due_turn(setup, False, unanswered=True).lock
    if lock is None:  # nothing due (another worker answered it), or a review waits
        return Queued(record, None)
    if abandoned.is_set():
        lock.__exit__(None, None, None)
        return Queued(record, None)
    try:
        coordinator, context = open_turn(setup, estimator, outbox.append, [])
    except BaseException as error:
        lock.__exit__(type(error), error, error.__traceback__)
        raise
    return Queued(record, Opening(lock, coordinator, context, outbox))


async def take_turn_lock(
    take: Callable[..., Locked | Queued], *args: Any, abandoned: threading.Event | None = None
) -> Any:
    """``take`` (whose result holds the turn lock it entered, or None) off the loop. The
    wait for the lock may be long (another worker's turn); a run cancelled meanwhile gives
    the lock back as soon as its thread gets it, and sets ``abandoned`` for ``take`` to see."""
    # Handed to a thread now, not on the loop's next round: a send queues in call order.
    work = functools.partial(contextvars.copy_context().run, take, *args)
    taking = asyncio.get_running_loop().run_in_executor(None, work)
    try:
        return await asyncio.shield(taking)
    except asyncio.CancelledError:
        if abandoned is not None:  # ``take`` looks at it once it has the lock
            abandoned.set()
        taking.add_done_callback(_give_back)
        raise


def _give_back(taking: asyncio.Future) -> None:
    if taking.cancelled() or taking.exception() is not None:
        return
    lock = taking.result().lock
    if lock is not None:
        asyncio.get_running_loop().run_in_executor(None, lock.__exit__, None, None, None)
