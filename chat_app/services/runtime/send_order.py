"""A tab's message waits, a bounded time, until the one the tab sent before it is queued.

The outbox numbers a tab's sends (``<tab>.<n>.<nonce>``, :mod:`agent_core`'s client order);
each send runs as its own task and may reach the store before its predecessor. The store puts
a late arrival back before the tab's later messages while they wait, but a turn may already
have delivered the later one, and delivered messages never move. So a send waits here for its
predecessor before it is queued.

The wait was a poll of the store every 50 ms, each poll a trip to a thread: with 4 tabs
sending 50 messages at once, 200 pollers filled the threads the sends themselves needed,
predecessors reached the store after the 3 s the wait allowed, and 3 of 200 messages were
stored out of order. Now a send whose predecessor runs in this process is woken when it is
queued or refused (:meth:`SendOrder.settle`), with no trip at all; the store is asked only when the
predecessor is not known here (another worker, a restarted process), every
``STORE_POLL_SECONDS``, for at most ``WAIT_SECONDS``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from collections.abc import Callable

from agent_core.events import AcceptedEvent
from agent_core.storage import parse_client_order

__all__ = [
    "STORE_POLL_SECONDS",
    "WAIT_SECONDS",
    "SendOrder",
    "SendsInFlight",
    "predecessor_prefix",
]

_log = logging.getLogger(__name__)

WAIT_SECONDS = 10.0
STORE_POLL_SECONDS = 0.5
_REMEMBERED = 4_096  # settled sends kept, newest last: enough for every tab sending at once


def predecessor_prefix(client_id: str | None) -> str | None:
    """The client-id prefix of the message the same tab sent just before this one, if any.

    A message whose predecessor has not reached the server yet waits a moment for it
    (:func:`after_predecessor`): a turn that delivered this one first could not put the
    earlier one back before it.
    """
    order = parse_client_order(client_id)
    if order is None or order[1] <= 1:
        return None
    return f"{order[0]}.{order[1] - 1}."


def _key(thread_id: str, client_id: str | None) -> tuple[str, str] | None:
    order = parse_client_order(client_id)
    return None if order is None else (thread_id, f"{order[0]}.{order[1]}.")


class SendOrder:
    """The process's settled sends and the sends waiting for theirs (one per app:
    :class:`~chat_app.services.runtime.container.App`)."""

    def __init__(
        self, *, wait_seconds: float = WAIT_SECONDS, poll_seconds: float = STORE_POLL_SECONDS
    ) -> None:
        self.wait_seconds = wait_seconds
        self.poll_seconds = poll_seconds
        self._settled: OrderedDict[tuple[str, str], None] = OrderedDict()
        self._waiting: dict[tuple[str, str], asyncio.Event] = {}

    def waiting(self) -> int:
        """How many sends wait for their predecessor now."""
        return len(self._waiting)

    def settle(self, thread_id: str, client_id: str | None) -> None:
        """The send of ``client_id`` is queued, or refused, or ended: the tab's next may go."""
        key = _key(thread_id, client_id)
        if key is None:
            return
        self._settled[key] = None
        self._settled.move_to_end(key)
        while len(self._settled) > _REMEMBERED:
            self._settled.popitem(last=False)
        waiter = self._waiting.pop(key, None)
        if waiter is not None:
            waiter.set()

    async def after_predecessor(
        self,
        thread_id: str,
        client_id: str | None,
        in_store: Callable[[str, str], bool],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Return once the message the same tab sent before ``client_id`` is queued (settled
        here, or found by ``in_store(thread_id, prefix)``), or after ``wait_seconds`` by
        ``clock``."""
        prefix = predecessor_prefix(client_id)
        if prefix is None:
            return
        key = (thread_id, prefix)
        deadline = clock() + self.wait_seconds
        try:
            while key not in self._settled:
                if await asyncio.to_thread(in_store, thread_id, prefix):
                    return
                remaining = deadline - clock()
                if remaining <= 0:
                    _log.warning(
                        "a message of thread %s is queued without the one its tab sent "
                        "before it (not there after %.0f s)",
                        thread_id,
                        self.wait_seconds,
                    )
                    return
                waiter = self._waiting.setdefault(key, asyncio.Event())
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(waiter.wait(), min(self.poll_seconds, remaining))
        finally:
            self._waiting.pop(key, None)  # settled, found, or given up on: nothing more to wake


class _Flight:
    """One send going on: its acknowledgement once the store has the message."""

    def __init__(self) -> None:
        self.accepted: AcceptedEvent | None = None
        self.decided = asyncio.Event()  # acknowledged, or ended without it


class SendsInFlight:
    """The sends this process runs now, by ``(owner, thread, client_id)``: a send of a
    message whose earlier send still runs waits for that one instead of starting a run.

    The outbox sends a message again under its ``client_id`` every few seconds until it is
    acknowledged. Each send was a run of its own: when acknowledgements came late (100 chats
    through a Redis cut), the resends piled up as runs that each read the thread before the
    store found their message was there already (1,076 runs in one turn process), and
    starved the runs that would have answered. Now a resend is answered with the first
    send's acknowledgement as soon as it comes, and only when the first ends without one
    does it run itself (one per app:
    :class:`~chat_app.services.runtime.container.App`)."""

    def __init__(self) -> None:
        self._flights: dict[tuple[str, str, str], _Flight] = {}

    def __len__(self) -> int:
        return len(self._flights)

    @contextlib.asynccontextmanager
    async def joined(self, owner: str, thread_id: str, client_id: str | None):
        """Inside: ``None`` when this send is to run (it is then the one in flight; call
        :meth:`accepted` with its acknowledgement), else the acknowledgement of an earlier
        send of the same message, which ran meanwhile."""
        if not client_id:
            yield None
            return
        key = (owner, thread_id, client_id)
        while (earlier := self._flights.get(key)) is not None:
            await earlier.decided.wait()
            if earlier.accepted is not None:
                yield earlier.accepted
                return
            # Ended unacknowledged (refused, or its turn process died): this one runs, unless
            # another resend that waited with it got there first.
        flight = self._flights[key] = _Flight()
        try:
            yield None
        finally:
            flight.decided.set()
            if self._flights.get(key) is flight:
                del self._flights[key]

    def accepted(self, owner: str, thread_id: str, event: AcceptedEvent) -> None:
        """The send in flight for ``event.client_id`` is acknowledged: its resends get this."""
        flight = self._flights.get((owner, thread_id, event.client_id))
        if flight is not None and flight.accepted is None:
            flight.accepted = event
            flight.decided.set()
