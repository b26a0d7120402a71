"""Streams of a run: items of the agent's stream until it ends or the run is stopped."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from typing import Any

__all__ = ["until_cancelled"]

_END = object()


async def until_cancelled(stream: AsyncIterator[Any], cancel: asyncio.Event) -> AsyncIterator[Any]:
    """Items of ``stream`` until it ends or ``cancel`` is set (even mid-wait).

    A task of its own pumps the stream into a buffer, and the caller takes what it holds:
    the caller is woken once when it waits for an item, never per item (a task and a wait
    per item cost every step of every turn several rounds of a busy event loop). Stopped,
    the pump is cancelled where it waits; the items it had already produced still come out
    first, so nothing the run did is dropped. An error the stream raises is raised here
    after the items before it.
    """
    loop = asyncio.get_running_loop()
    buffer: deque[Any] = deque()
    failure: list[BaseException] = []
    waiting: list[asyncio.Future[None]] = []

    def wake() -> None:
        while waiting:
            waiter = waiting.pop()
            if not waiter.done():
                waiter.set_result(None)

    async def pump() -> None:
        try:
            async for item in stream:
                buffer.append(item)
                wake()
        except asyncio.CancelledError:
            pass
        except Exception as error:
            failure.append(error)
        finally:
            buffer.append(_END)
            wake()

    pumping = asyncio.ensure_future(pump())
    stopper = asyncio.ensure_future(cancel.wait())
    stopper.add_done_callback(lambda _: (pumping.cancel(), wake()))
    try:
        while True:
            while buffer:
                item = buffer.popleft()
                if item is _END:
                    if failure:
                        raise failure[0]
                    return
                yield item
            if cancel.is_set() and pumping.done():
                return
            waiter = loop.create_future()
            waiting.append(waiter)
            await waiter
    finally:
        stopper.cancel()
        pumping.cancel()
        await asyncio.wait({pumping})
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            try:
                await aclose()
            except (RuntimeError, asyncio.CancelledError):  # already closed / cancelled
                pass
