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
    manager = _Manager(
        {"left": old, "connected": old, "recent": now - 1, "unwritten": old, "locked": old}
    )
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


def test_with_redis_a_worker_gives_back_what_its_turns_left_once_none_runs(monkeypatch) -> None:
    """With Redis each event's state copy is garbage only a full collection frees (a worker
    kept ~215 MB after 100 chats): collected once turns have run and none runs now."""
    from reflex.istate.manager.redis import StateManagerRedis

    from chat_app.states import left_tabs

    runs = iter([0, 0, 2, 3, 1, 0, 0, 0, 4, 0] + [0] * 1000)
    seen: list[int] = []
    released: list[int] = []

    def runs_here() -> int:
        seen.append(next(runs))
        return seen[-1]

    monkeypatch.setattr(left_tabs, "SWEEP_SECONDS", 0.001)
    monkeypatch.setattr(left_tabs, "release_memory", lambda: released.append(len(seen)))

    class _App:
        state_manager = StateManagerRedis.__new__(StateManagerRedis)

    async def run_a_while() -> None:
        task = asyncio.create_task(left_tabs.evict_left_tabs(_App(), runs_here))
        for _ in range(2000):  # bounded: a worker that never sweeps fails, not hangs
            if len(seen) >= 30:
                break
            await asyncio.sleep(0.001)
        task.cancel()

    asyncio.run(run_a_while())
    # Not before any turn ran; right after the first quiet sweep of each busy stretch; once.
    assert released == [6, 10]
