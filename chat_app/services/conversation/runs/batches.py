"""A run's events taken in batches, by a consumer that never holds the run up.

A page applies each event of a run to the tab's state under the tab's lock and sends the
change to the browser; under load that costs tens of milliseconds an event. Pulled by the
page, the run waited for all of it at every event: the ``accepted`` of a send before taking
the turn lock, a ``utilization`` between two middleware steps before the model call, so a
message's first words waited for every change shown before them. :func:`in_batches` runs the
events in a task of their own; the page takes what arrived since its last change, and
applies it at once: one lock, one change sent, however many events it holds.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TypeVar

__all__ = ["in_batches"]

T = TypeVar("T")
_END = object()


class _Failed:
    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


async def in_batches(events: AsyncIterator[T]) -> AsyncIterator[list[T]]:
    """Every event of ``events``, in order, in lists of those that came since the last one.

    ``events`` runs in its own task (with a copy of the caller's context), so it goes on
    while the caller handles a batch. An exception it raises is raised here after the
    events before it. Closing or cancelling this generator cancels that task and waits for
    it, as closing ``events`` would have: a run stops where it was.
    """
    queue: asyncio.Queue = asyncio.Queue()

    async def produce() -> None:
        try:
            async for event in events:
                queue.put_nowait(event)
        except Exception as error:  # handed to the consumer, raised there
            queue.put_nowait(_Failed(error))
        finally:
            queue.put_nowait(_END)

    producer = asyncio.create_task(produce())
    try:
        while True:
            batch = [await queue.get()]
            while not queue.empty():
                batch.append(queue.get_nowait())
            ended = batch[-1] is _END
            if ended:
                batch.pop()
            failed = batch.pop() if batch and isinstance(batch[-1], _Failed) else None
            if batch:
                yield batch
            if failed is not None:
                raise failed.error
            if ended:
                return
    finally:
        if not producer.done():
            producer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await producer
