"""The states of tabs that left are dropped from the worker's memory (disk keeps them)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from chat_app.states.left_tabs import GRACE_SECONDS, sweep


@dataclass(frozen=True)
class _Token:
    ident: str

    @property
    def cache_key(self) -> str:
        return self.ident

    @property
    def lock_key(self) -> str:
        return self.ident


class _Manager:
    """The parts of Reflex's StateManagerDisk the sweep reads and changes."""

    def __init__(self, touched: dict[str, float]) -> None:
        self._token_last_touched = {key: (at, _Token(key)) for key, at in touched.items()}
        self.states = {key: object() for key in touched}
        self._states_locks = {key: asyncio.Lock() for key in touched}
        self._write_queue: dict[_Token, object] = {}

    def _is_locked(self, token: _Token) -> bool:
        return self._states_locks[token.lock_key].locked()


def test_only_tabs_gone_past_the_grace_with_nothing_pending_are_dropped() -> None:
    now = 1_000.0
    old = now - GRACE_SECONDS - 1
    manager = _Manager({"left": old, "connected": old, "recent": now - 1, "unwritten": old,
                        "locked": old})
    manager._write_queue[_Token("unwritten")] = object()

    async def hold_lock() -> int:
        async with manager._states_locks["locked"]:
            return sweep(manager, {"connected"}, now)

    assert asyncio.run(hold_lock()) == 1
    assert set(manager.states) == {"connected", "recent", "unwritten", "locked"}
    assert set(manager._token_last_touched) == set(manager.states)
    assert "left" not in manager._states_locks


def test_the_memory_of_dropped_tabs_is_given_back_once_no_turn_runs() -> None:
    """A full collection stops the whole worker while it walks the heap: it waits for a
    moment without turns, or at most ``RELEASE_WAIT_SECONDS``."""
    from chat_app.states.left_tabs import RELEASE_WAIT_SECONDS, release_due

    assert not release_due(None, 0, 100.0)  # nothing dropped, nothing owed
    assert not release_due(100.0, 3, 101.0)  # turns running: later
    assert release_due(100.0, 0, 101.0)  # quiet now
    assert release_due(100.0, 3, 100.0 + RELEASE_WAIT_SECONDS)  # never quiet: not forever
