"""A chat tab's watcher riding out a Redis outage (the tabs' state and the live channel).

While Redis is cut a tab's state can be neither read nor written, so what the tab is told
goes straight to its socket (a toast, which needs no state): live updates are paused. The
watcher then waits, trying again every few seconds, until the live channel is subscribed and
the tab's state answers, reads its thread again (what was published meanwhile is lost),
starts again whichever of Reflex's own Redis tasks gave up, and says live updates are back.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable

import reflex as rx

from chat_app.errors import AppError
from chat_app.root import root
from chat_app.services.runtime import live
from chat_app.states.connection import connected_here
from chat_app.upstream import rearm_redis_tasks

__all__ = ["TabGone", "PAUSED_TEXT", "paused_notice", "resumed_notice", "ride_out"]

_log = logging.getLogger(__name__)

PAUSED_TEXT = (
    "Live updates are paused: the server lost its connection to Redis. They resume by "
    "themselves when it is back; what you send meanwhile is stored, and other tabs show it "
    "then."
)
_TOAST_ID = "live-updates"
_RETRY_MAX_SECONDS = 5.0


class TabGone(AppError):
    """The tab closed, moved to another worker or another chat while the outage lasted."""


def paused_notice() -> rx.event.EventSpec:
    return rx.toast.warning(PAUSED_TEXT, id=_TOAST_ID, duration=10 * 60 * 1000)


def resumed_notice() -> rx.event.EventSpec:
    return rx.toast.success("Live updates are back.", id=_TOAST_ID, duration=4000)


async def ride_out(
    queue: asyncio.Queue[live.Relayed], token: str, recover: Callable[[], Awaitable[bool]]
) -> AsyncIterator[rx.event.EventSpec]:
    """Say live updates are paused, wait until ``recover()`` (the tab reads its thread again)
    succeeds, and say they are back. ``recover`` returns False, and this raises
    :class:`TabGone`, when the tab no longer wants this watcher."""
    yield paused_notice()
    delay = 1.0
    while True:
        await asyncio.sleep(delay)
        delay = min(delay * 2, _RETRY_MAX_SECONDS)
        while not queue.empty():  # the thread is read again as a whole
            queue.get_nowait()
        if not connected_here(token):
            raise TabGone
        if root().live.paused():
            continue
        try:
            wanted = await recover()
        except Exception:  # the state store still does not answer
            _log.debug("a tab's state is not reachable yet", exc_info=True)
            continue
        if not wanted:
            raise TabGone
        try:
            rearm_redis_tasks()
        except Exception:  # Reflex moved them: the tab follows on, the log says why
            _log.warning("could not start Reflex's Redis tasks again", exc_info=True)
        yield resumed_notice()
        return
