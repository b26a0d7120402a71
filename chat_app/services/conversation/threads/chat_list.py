"""Every tab of an owner follows their chat list: a chat made, renamed or deleted in one
tab (or on another device) is announced on the owner's list channel, and each tab showing
the list reads it again.

The channel is the live channel's (:mod:`chat_app.services.runtime.live`), under a name of
its own per owner, so it reaches the tabs of every worker as a thread's events do. What it
carries is only "read your list again": the list itself is always read from the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import AsyncIterator

from chat_app.services.runtime.container import App
from chat_app.services.runtime.live import Relayed

__all__ = ["announce", "watch_list"]

_PREFIX = "chat-list-"


def _channel(owner: str) -> str:
    # Hashed: the owner's id is a credential of sorts; channel names show in Redis.
    return _PREFIX + hashlib.sha256(owner.encode()).hexdigest()[:32]


async def announce(app: App, owner: str) -> None:
    """Tell every tab of ``owner`` that their chat list changed."""
    await app.live.resync(_channel(owner))


@contextlib.asynccontextmanager
async def watch_list(app: App, owner: str) -> AsyncIterator[asyncio.Queue[Relayed]]:
    """A queue that receives an item each time ``owner``'s chat list changes."""
    async with app.live.watch(_channel(owner)) as queue:
        yield queue
