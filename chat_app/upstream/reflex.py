"""Reflex's internals the app touches: which tabs have their websocket open on this process,
the disk state manager's memory copies, the Redis tasks after an outage, and the tabs' state
while Redis is cut. Each reach is in :data:`REACHES`."""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

from chat_app.upstream.reach import Reach, dotted_attr, names_in, signature_names

_log = logging.getLogger(__name__)

# ---------------------------------------------------------------------------------------
# Reflex: which tabs have their websocket open on this process.
#
# The event namespace keeps its socket records in ``_token_manager``; its public
# ``is_token_connected`` answers "on any worker", and a watcher must know "on this one".


def socket_records(event_namespace: Any) -> Any:
    """The namespace's token manager: ``token_to_socket`` (token -> record with its
    ``instance_id``) and this process's ``instance_id``."""
    return event_namespace._token_manager


def _reflex_token_manager() -> bool:
    namespace, manager = (
        dotted_attr("reflex.app.EventNamespace"),
        dotted_attr("reflex.utils.token_manager"),
    )
    return (
        "_token_manager" in names_in(namespace.__init__)
        and "token_to_socket" in names_in(manager.TokenManager.__init__)
        and "instance_id" in names_in(manager.TokenManager._reset_instance_id)
        and "instance_id" in manager.SocketRecord.__dataclass_fields__
    )


# ---------------------------------------------------------------------------------------
# Reflex: the disk state manager's memory copy of a tab's state (chat_app.states.left_tabs).
#
# StateManagerDisk keeps every tab's state in memory until its token expires (an hour) and
# has no public way to let one go early; its own ``_purge_token`` also unlinks substates a
# running task may still hold.


def idle_disk_states(manager: Any) -> Iterator[tuple[float, Any]]:
    """(last touched, token) of each state ``manager`` holds in memory whose changes are on
    disk and whose lock is free."""
    pending = {token.cache_key for token in manager._write_queue}
    for cache_key, (touched, token) in list(manager._token_last_touched.items()):
        if cache_key not in pending and not manager._is_locked(token):
            yield touched, token


def forget_disk_state(manager: Any, token: Any) -> None:
    """Drop ``token``'s state from ``manager``'s memory whole (disk keeps it); the collector
    frees it once no task holds it."""
    manager._token_last_touched.pop(token.cache_key, None)
    manager._states_locks.pop(token.lock_key, None)
    manager.states.pop(token.cache_key, None)


def _reflex_disk_manager() -> bool:
    disk = dotted_attr("reflex.istate.manager.disk.StateManagerDisk")
    fields = disk.__dataclass_fields__
    return (
        all(name in fields for name in ("states", "_write_queue", "_token_last_touched"))
        and "_states_locks" in fields
        and signature_names(disk._is_locked) == ["self", "token"]
    )


# ---------------------------------------------------------------------------------------
# Reflex: how often the disk state manager looks for expired tabs' files.
#
# Its write-queue task runs ``_purge_expired_states`` after every pass, that is every
# debounce period (2 s): it lists the states directory and stats each file, though a file
# expires only after an hour. With a thousand tabs' files that is a thousand stat calls
# every 2 s in a thread, each handing the GIL back and forth with the event loop that serves
# the tabs. Reflex has no setting for it.

#: How often the expired files are looked for; a file lives an hour (the token expiration).
DISK_PURGE_EVERY = 60.0


@functools.cache
def _purging_less_often_class() -> Any:
    """``StateManagerDisk`` whose look for expired files runs once a :data:`DISK_PURGE_EVERY`
    (built on first use: Reflex is imported inside the functions of this module)."""
    from reflex.istate.manager.disk import StateManagerDisk

    class PurgeLessOften(StateManagerDisk):
        _purged_at: float | None = None

        def _purge_expired_states(self) -> None:
            now = time.monotonic()
            if self._purged_at is not None and now - self._purged_at < DISK_PURGE_EVERY:
                return
            self._purged_at = now
            super()._purge_expired_states()

    return PurgeLessOften


def purge_disk_states_less_often(app: Any) -> bool:
    """Give ``app`` the disk state manager above in place of Reflex's; False when it keeps
    its state elsewhere (Redis, memory)."""
    from reflex.istate.manager.disk import StateManagerDisk

    current = app._state_manager
    if type(current) is not StateManagerDisk:
        return isinstance(current, _purging_less_often_class())
    manager = _purging_less_often_class()(token_expiration=current.token_expiration)
    manager._purged_at = time.monotonic()  # its construction has just purged
    app._state_manager = manager
    return True


def _reflex_disk_purge() -> bool:
    from reflex.app import App

    disk = dotted_attr("reflex.istate.manager.disk.StateManagerDisk")
    return (
        signature_names(disk._purge_expired_states) == ["self"]
        and "_purge_expired_states" in names_in(disk._process_write_queue)
        and "_purge_expired_states" in names_in(disk.__post_init__)
        and "token_expiration" in disk.__dataclass_fields__
        and "_state_manager" in App.__dataclass_fields__
    )


# ---------------------------------------------------------------------------------------
# Reflex: its Redis pub/sub tasks after an outage.
#
# With Redis, each worker runs three tasks through ``reflex.utils.tasks.ensure_task``: the
# token manager's socket-record and lost-and-found subscriptions and the state manager's
# lock-release subscription. Each gives up for good after five errors within 60 s ("task
# exceeded exception limit 5 within 60.0s"), which a Redis outage of a few seconds causes;
# the limit is a default of ``ensure_task`` that no setting reaches, and Reflex starts them
# again only on a new socket connection (or a contended lock), which tabs that lived through
# the outage never make.


def _reflex_app() -> Any:
    from reflex.utils import prerequisites

    return prerequisites.get_app().app


def tab_sockets() -> Any:
    """The running app's socket records (see :func:`socket_records`)."""
    return socket_records(_reflex_app().event_namespace)


def rearm_redis_tasks() -> list[str]:
    """Start again those of Reflex's Redis tasks that gave up; the names of those started."""
    started: list[str] = []
    app = _reflex_app()
    manager = socket_records(app.event_namespace)
    from reflex.istate.manager.redis import StateManagerRedis
    from reflex.utils.token_manager import RedisTokenManager

    if isinstance(manager, RedisTokenManager):
        for attribute, ensure in (
            (
                "_lost_and_found_task",
                lambda: manager.ensure_lost_and_found_task(app.event_namespace.emit_update),
            ),
            ("_socket_record_task", manager._ensure_socket_record_task),
        ):
            task = getattr(manager, attribute)
            if task is None or task.done():
                ensure()
                started.append(attribute)
    states = app.state_manager
    if isinstance(states, StateManagerRedis) and (
        states._lock_task is None or states._lock_task.done()
    ):
        states._ensure_lock_task()
        started.append("_lock_task")
    if started:
        _log.warning("Reflex's Redis tasks started again after an outage: %s", started)
    return started


def _reflex_redis_tasks() -> bool:
    from reflex.istate.manager.redis import StateManagerRedis
    from reflex.utils.token_manager import RedisTokenManager

    return (
        callable(getattr(RedisTokenManager, "ensure_lost_and_found_task", None))
        and callable(getattr(RedisTokenManager, "_ensure_socket_record_task", None))
        and callable(getattr(StateManagerRedis, "_ensure_lock_task", None))
        and "_lock_task" in StateManagerRedis.__dataclass_fields__
    )


# ---------------------------------------------------------------------------------------
# Reflex: the tabs' state while Redis is cut.
#
# With several workers Reflex keeps every tab's state in Redis and takes a Redis lock for each
# event: a cut made every event fail, so every message sent during it was refused although
# PostgreSQL, which stores it, was up. A tab's events all arrive over its one websocket, on
# one worker: that worker's last copy of the tab's state is as good as Redis's while Redis
# is unreachable. The subclass below keeps the copy of each tab connected here, serves an
# event from it when Redis does not answer (or finishes an event whose state it could not
# save), and writes the copies changed meanwhile back under the Redis lock once Redis
# answers. Events on one tab in one worker go one at a time (a local lock, as Reflex's
# memory manager does), the Redis lock still orders them across workers. Reflex has no
# setting for the state manager's class; ``StateManagerRedis._lock`` (the Redis lock) and
# ``get_state(..., for_state_instance=)`` are private to it.

_COPY_PRUNE_SECONDS = 30.0  # copies of tabs no longer connected here are dropped this often
_FLUSH_RETRY_SECONDS = 1.0  # copies changed during a cut are written back this often


def _redis_errors() -> tuple[type[BaseException], ...]:
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    return (RedisConnectionError, RedisTimeoutError, OSError)


def _lock_expired() -> type[BaseException]:
    from reflex.utils.exceptions import LockExpiredError

    return LockExpiredError


def _every_state(root: Any) -> Iterator[Any]:
    stack = [root]
    while stack:
        state = stack.pop()
        yield state
        stack.extend(state.substates.values())


def _graft(source: Any, target: Any) -> None:
    """Hang under ``target``'s tree the substates of ``source``'s (the same state class)
    that it lacks."""
    pairs = [(source, target)]
    while pairs:
        old, new = pairs.pop()
        for name, old_sub in old.substates.items():
            new_sub = new.substates.get(name)
            if new_sub is None:
                new.substates[name] = old_sub
                old_sub.parent_state = new
            elif new_sub is not old_sub:
                pairs.append((old_sub, new_sub))


_state_counts: dict[type, int] = {}


def _state_count(root: type) -> int:
    """How many state classes the tree of ``root`` holds."""
    if root not in _state_counts:
        count, stack = 0, [root]
        while stack:
            cls = stack.pop()
            count += 1
            stack.extend(cls.get_substates())
        _state_counts[root] = count
    return _state_counts[root]


_ride_out_class: Any = None


def _ride_out_states_class() -> Any:
    """The subclass of Reflex's ``StateManagerRedis`` that rides out a Redis cut (built on
    first use: this module imports Reflex only inside functions)."""
    global _ride_out_class
    if _ride_out_class is not None:
        return _ride_out_class
    import asyncio
    import contextlib
    import dataclasses

    from reflex.istate.manager.redis import StateManagerRedis
    from reflex.istate.manager.token import BaseStateToken

    @dataclasses.dataclass
    class RideOutRedisCuts(StateManagerRedis):
        # ident -> the last state tree of a tab connected here; the changed-during-a-cut ones
        _copies: dict[str, Any] = dataclasses.field(default_factory=dict, init=False)
        _unsaved: dict[str, Any] = dataclasses.field(default_factory=dict, init=False)
        _tab_locks: dict[str, asyncio.Lock] = dataclasses.field(default_factory=dict, init=False)
        _flusher: asyncio.Task | None = dataclasses.field(default=None, init=False)
        _pruned_at: float = dataclasses.field(default=0.0, init=False)
        # Whether a tab is connected to this worker (the app's socket records).
        connected_here: Callable[[str], bool] = dataclasses.field(
            default=lambda _ident: True, init=False
        )

        @contextlib.asynccontextmanager
        async def modify_state(self, token, **context):
            token = self._coerce_token(token)
            if not isinstance(token, BaseStateToken) or self._oplock_enabled:
                async with super().modify_state(token, **context) as state:
                    yield state
                return
            ident = token.lock_key
            self._prune()
            async with (
                self._tab_locks.setdefault(ident, asyncio.Lock()),
                self._modify(token, ident, context) as state,
            ):
                yield state

        @contextlib.asynccontextmanager
        async def _modify(self, token, ident: str, context: Any):
            event = context.get("event")
            state, in_body = None, False
            try:
                async with self._lock(token, event_name=getattr(event, "name", None)) as lock_id:
                    state = await self._fresh_state(token, ident)
                    in_body = True
                    yield state
                    in_body = False
                    await self.set_state(token, state, lock_id=lock_id, **context)
                await self._remember(token, ident, state)
                return
            except (*_redis_errors(), _lock_expired()) as cut:
                if in_body:
                    raise  # the event's own failure, not the state's
                if state is not None:  # the event ran; only its state could not be saved
                    self._keep_unsaved(ident, state, cut)
                    return
                copy = self._copies.get(ident)
                if copy is None or isinstance(cut, _lock_expired()):
                    raise
                # Fetches from Redis only a substate the copy lacks (and fails if it must).
                await self.get_state(token, for_state_instance=copy)
                _log.warning(
                    "Redis unreachable (%s): tab %s served from this worker's copy",
                    type(cut).__name__,
                    ident[:8],
                )
            yield copy
            self._keep_unsaved(ident, copy, None)

        async def _fresh_state(self, token, ident: str) -> Any:
            unsaved = self._unsaved.pop(ident, None)
            if unsaved is None:
                return await self.get_state(token)
            for state in _every_state(unsaved):  # written whole: Redis has an older tree
                state._was_touched = True
            return await self.get_state(token, for_state_instance=unsaved)

        async def _remember(self, token: Any, ident: str, saved: Any) -> None:
            """Keep ``saved`` (just written to Redis) as the tab's copy, whole: an event
            loads only its own states' branch, the copy must serve any event of the tab.
            The previous copy gives what it had; the rest is read once."""
            for state in _every_state(saved):
                state._was_touched = False  # Redis has it; a later save writes what changes
            previous = self._copies.get(ident)
            if previous is not None and previous is not saved:
                _graft(previous, saved)
            self._copies[ident] = saved
            if sum(1 for _ in _every_state(saved)) < _state_count(type(saved)):
                root = BaseStateToken(ident=ident, cls=type(saved))
                await self.get_state(root, for_state_instance=saved)

        def _keep_unsaved(self, ident: str, state: Any, cut: BaseException | None) -> None:
            if cut is not None:
                _log.warning(
                    "tab %s's state not saved to Redis (%s): kept here and written back",
                    ident[:8],
                    type(cut).__name__,
                )
            previous = self._copies.get(ident)
            if previous is not None and previous is not state:
                _graft(previous, state)
            self._copies[ident] = self._unsaved[ident] = state
            if self._flusher is None or self._flusher.done():
                self._flusher = asyncio.create_task(self._write_back())

        async def _write_back(self) -> None:
            """Write the copies changed during a cut to Redis once it answers."""
            while self._unsaved:
                await asyncio.sleep(_FLUSH_RETRY_SECONDS)
                for ident in list(self._unsaved):
                    state = self._unsaved.get(ident)
                    if state is None:
                        continue
                    token = BaseStateToken(ident=ident, cls=type(state))
                    try:
                        async with self.modify_state(token):
                            pass  # taking it writes the unsaved tree under the Redis lock
                    except _redis_errors():
                        continue  # still cut: tried again in a moment
                    except Exception:  # never retried forever: the tab's next event saves
                        _log.exception("tab %s's state could not be written back", ident[:8])
                        self._unsaved.pop(ident, None)
                    if self._unsaved.get(ident) is None:
                        _log.warning("Redis answers again: tab %s's state written back", ident[:8])

        def _prune(self) -> None:
            now = time.monotonic()
            if now - self._pruned_at < _COPY_PRUNE_SECONDS:
                return
            self._pruned_at = now
            for ident in list(self._copies):
                if ident not in self._unsaved and not self.connected_here(ident):
                    self._copies.pop(ident, None)
                    lock = self._tab_locks.get(ident)
                    if lock is not None and not lock.locked():
                        self._tab_locks.pop(ident, None)

    _ride_out_class = RideOutRedisCuts
    return RideOutRedisCuts


def ride_out_redis_cuts(app: Any) -> bool:
    """Give ``app`` the state manager above in place of Reflex's ``StateManagerRedis``;
    False when the app keeps its state elsewhere (one worker, no Redis)."""
    from reflex.istate.manager.redis import StateManagerRedis

    current = app._state_manager
    if not isinstance(current, StateManagerRedis):
        return False
    cls = _ride_out_states_class()
    if isinstance(current, cls):
        return True
    manager = cls(
        redis=current.redis,
        token_expiration=current.token_expiration,
        lock_expiration=current.lock_expiration,
        lock_warning_threshold=current.lock_warning_threshold,
    )

    def connected_here(ident: str) -> bool:
        records = socket_records(app.event_namespace)
        record = records.token_to_socket.get(ident)
        return record is not None and record.instance_id == records.instance_id

    manager.connected_here = connected_here
    app._state_manager = manager
    return True


def _reflex_redis_states() -> bool:
    from reflex.app import App
    from reflex.istate.manager.redis import StateManagerRedis

    return (
        signature_names(StateManagerRedis._lock) == ["self", "token", "event_name"]
        and "for_state_instance" in signature_names(StateManagerRedis.get_state)
        and "_oplock_enabled" in StateManagerRedis.__dataclass_fields__
        and "_state_manager" in App.__dataclass_fields__
        and "_was_touched" in vars(dotted_attr("reflex.state.BaseState"))
    )


REACHES: tuple[Reach, ...] = (
    Reach("reflex", "0.10.1", "EventNamespace._token_manager", _reflex_token_manager),
    Reach(
        "reflex",
        "0.10.1",
        "StateManagerDisk._write_queue, _token_last_touched, _states_locks, _is_locked",
        _reflex_disk_manager,
    ),
    Reach(
        "reflex",
        "0.10.1",
        "App._state_manager; StateManagerDisk._purge_expired_states (its caller and signature)",
        _reflex_disk_purge,
    ),
    Reach(
        "reflex",
        "0.10.1",
        "RedisTokenManager._lost_and_found_task, _socket_record_task, "
        "_ensure_socket_record_task; StateManagerRedis._lock_task, _ensure_lock_task",
        _reflex_redis_tasks,
    ),
    Reach(
        "reflex",
        "0.10.1",
        "App._state_manager; StateManagerRedis._lock, _oplock_enabled, get_state("
        "for_state_instance=); BaseState._was_touched",
        _reflex_redis_states,
    ),
)
