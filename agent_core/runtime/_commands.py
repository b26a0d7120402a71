"""The thread's commands outside a turn: ``/handoff`` (end the session now with a handoff)
and "compact now". Each takes the thread's turn lock, as a turn does."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any, Protocol

from agent_core.accounting._calibration import ContextEstimator
from agent_core.context._build import build_context
from agent_core.errors import HandoffCancelled, NothingToHandOff
from agent_core.events import CompactEvent, CompactStatus, Event, HandoffEvent, HandoffStatus
from agent_core.redaction import known_secrets, redact_text
from agent_core.runtime._coordinator import SessionCoordinator
from agent_core.runtime._turn import TurnSetup

__all__ = ["Runs", "compact_now", "handoff", "user_error"]

log = logging.getLogger(__name__)


class Runs(Protocol):
    """What a command needs of the thread's runner: whether the thread is busy, its turn
    lock, the thread's estimator, and marking the thread busy and idle."""

    _active: set[str]

    def is_busy(self, thread_id: str) -> bool: ...

    def _idle(self, thread_id: str) -> None: ...

    def estimator(self, setup: TurnSetup) -> ContextEstimator: ...

    async def _turn_lock(self, setup: TurnSetup) -> Any: ...


async def handoff(
    runner: Runs, setup: TurnSetup, focus: str | None, *, cancel: asyncio.Event
) -> AsyncIterator[Event]:
    """``/handoff [focus]``: end the session now with a handoff; cancellable until commit."""
    if runner.is_busy(setup.thread_id):
        yield _handoff_status("failed", "Handoff failed: the agent is still working; stop it first")
        return
    runner._active.add(setup.thread_id)
    lock = await runner._turn_lock(setup)
    try:
        outbox: list[Event] = []
        coordinator = SessionCoordinator(
            setup, estimator=runner.estimator(setup), emit=outbox.append
        )
        context = coordinator.opening_context()
        conversation = [
            m
            for m in context
            if m.type in ("human", "ai") and not m.additional_kwargs.get("baton_kind")
        ]
        if len(conversation) < 2:
            yield _handoff_status("nothing", str(NothingToHandOff()))
            return
        yield _handoff_status("started", "Writing the handoff…")
        estimate = coordinator.measure(context)
        task = asyncio.ensure_future(
            coordinator.reset(
                context,
                trigger="manual",
                utilization=estimate.fraction,
                focus=focus,
                cancel=cancel,
                raise_errors=True,
            )
        )
        try:
            while not task.done():
                await asyncio.wait({task}, timeout=0.05)
                while outbox:
                    yield outbox.pop(0)
            task.result()
        except HandoffCancelled:
            while outbox:
                yield outbox.pop(0)
            yield _handoff_status("cancelled", "Handoff cancelled")
            return
        except Exception as exc:
            while outbox:
                yield outbox.pop(0)
            yield _handoff_status("failed", f"Handoff failed: {user_error(exc)}")
            return
        while outbox:
            yield outbox.pop(0)
        yield _handoff_status(
            "done", f"Session {coordinator.session.number} started with the handoff"
        )
    finally:
        await asyncio.to_thread(lock.__exit__, None, None, None)
        runner._idle(setup.thread_id)


# compact now --------------------------------------------------------------------------
async def compact_now(runner: Runs, setup: TurnSetup) -> AsyncIterator[Event]:
    """ "Compact now": summarize the open session's older part at once, whatever the
    thresholds say. Yields the ``compaction`` events and a ``compact`` status."""
    if runner.is_busy(setup.thread_id):
        yield _compact_status("failed", "The agent is still working; stop it first")
        return
    runner._active.add(setup.thread_id)
    lock = await runner._turn_lock(setup)
    try:
        outbox: list[Event] = []
        coordinator = await asyncio.to_thread(
            SessionCoordinator, setup, estimator=runner.estimator(setup), emit=outbox.append
        )
        context = await asyncio.to_thread(build_context, setup.store, coordinator.session)
        coordinator.adopt(context)
        try:
            compacted = await coordinator.compact(context, coordinator.measure(context))
        except Exception as exc:
            log.exception("compaction of thread %s failed", setup.thread_id)
            compacted, failure = None, user_error(exc)
        else:
            failure = ""
        if compacted is not None:
            coordinator.measure(compacted)
        for event in outbox:
            yield event
        if failure:
            yield _compact_status("failed", f"Compaction failed: {failure}")
        elif coordinator.compaction_discarded:
            yield _compact_status(
                "discarded",
                "Nothing changed: the summary was not smaller than what it would replace",
            )
        elif compacted is None:
            yield _compact_status(
                "nothing", "Nothing to compact yet: the recent part is all there is"
            )
        else:
            yield _compact_status("done", "Compacted the earlier part of this session")
    finally:
        await asyncio.to_thread(lock.__exit__, None, None, None)
        runner._idle(setup.thread_id)


def _compact_status(status: CompactStatus, message: str) -> CompactEvent:
    return CompactEvent(status=status, message=message)


def _handoff_status(status: HandoffStatus, message: str) -> HandoffEvent:
    return HandoffEvent(status=status, message=message)


def user_error(exc: BaseException) -> str:
    # Any exception may quote a request URL or a key (httpx, a proxy's error page).
    text = redact_text(str(exc), known_secrets()).strip() or type(exc).__name__
    return text.splitlines()[0][:300]
