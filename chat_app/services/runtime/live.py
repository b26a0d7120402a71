"""The live thread channel: every tab on a thread sees every run of it, from any worker.

A run (a send, a resume of queued messages, a ``/handoff``) streams its UI events to the tab
that started it and publishes them here under the run's id. Every other tab watching the
thread, in this process or another, receives them and applies them the same way; the
starting tab skips its own run's copy. Whether a thread has a run going is kept here too, so
a tab opened (or reloaded) mid-turn shows the turn and its Stop button.

With ``REFLEX_REDIS_URL`` the channel is Redis pub/sub (one pattern subscription per process,
kept for the process's life and made again after a drop, fanned out to the local watchers)
and the running flag a Redis key with a time to live, so all workers share them; without it,
everything runs in this process, which is then the only one. A watcher that falls behind by
``QUEUE_LIMIT`` events is told to reload the thread.

What travels is the page's own events (:data:`ui_events.UiEvent`), each stamped with its
run (:class:`Relayed`); through Redis as their wire shape, read back on arrival.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
import uuid
from collections import defaultdict
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from agent_core.events import AcceptedEvent, TokenEvent
from chat_app.services.presentation.ui_events import (
    RESYNC,
    Refused,
    RunChanged,
    UiEvent,
    parse_ui_event,
)

__all__ = [
    "Relayed",
    "Paused",
    "paused",
    "relay",
    "read_frame",
    "new_run_id",
    "publish",
    "resync",
    "watch",
    "settled",
    "run_started",
    "run_alive",
    "run_ended",
    "is_running",
    "resubscribe_delay",
    "QUEUE_LIMIT",
    "RUNNING_TTL_SECONDS",
    "RESUBSCRIBE_MAX_SECONDS",
]

_log = logging.getLogger(__name__)

QUEUE_LIMIT = 2_000  # events a watcher may lag behind before it must reload
RUNNING_TTL_SECONDS = 30  # a run's flag outlives a killed worker by at most this
# A subscription attempt is one connection: cheap enough to try every few seconds, and a tab
# hears again at most this long after Redis is back (with 30 s, up to 16 s after a 15 s cut).
RESUBSCRIBE_MAX_SECONDS = 5.0
_CHANNEL = "baton:live:"
_CLIENT_NAME = "baton-live"  # how the process's connections show in Redis's CLIENT LIST
_RUNNING = "baton:running:"

_watchers: dict[str, set[asyncio.Queue]] = defaultdict(set)
_local_runs: dict[str, dict[str, float]] = defaultdict(dict)  # thread -> run -> expires
_redis_client: Any = None
_listener: asyncio.Task | None = None
_subscribed: asyncio.Event | None = None


def _redis_url() -> str:
    return os.environ.get("REFLEX_REDIS_URL", "")


def _client() -> Any:
    global _redis_client
    if _redis_client is None:
        import redis.asyncio as redis

        # Undecodable bytes on the channel become U+FFFD and then a malformed frame that
        # is skipped; a decoding error would instead drop the subscription.
        _redis_client = redis.Redis.from_url(
            _redis_url(),
            decode_responses=True,
            encoding_errors="replace",
            client_name=_CLIENT_NAME,
        )
    return _redis_client


@dataclass(frozen=True)
class Paused:
    """Not an event of a run: the channel itself is cut (its Redis went away). Every watcher
    gets it when the subscription drops, and a ``Resync`` once it is made again."""


@dataclass(frozen=True)
class Relayed:
    """One event of run ``run`` on the thread's live channel."""

    run: str
    event: UiEvent | Paused


_RESYNC = Relayed("", RESYNC)
_PAUSED = Relayed("", Paused())
_paused = False


def paused() -> bool:
    """Whether the channel is cut now: its Redis subscription dropped and is not made again
    yet (with no Redis, never)."""
    return _paused


def _deliver(thread_id: str, event: Relayed) -> None:
    for queue in list(_watchers.get(thread_id, ())):
        try:
            queue.put_nowait(event)
        except asyncio.QueueFull:
            # Too far behind to catch up event by event: it reloads the thread instead.
            with contextlib.suppress(asyncio.QueueFull):
                queue.get_nowait()
                queue.put_nowait(_RESYNC)


def read_frame(data: Any) -> Relayed | None:
    """The event a frame of the channel carries, or None when it is not one of ours: anyone
    with access to Redis can publish there, and a bad frame must not cost the subscription."""
    try:
        wire = json.loads(data)
        if not isinstance(wire, dict):
            return None
        return Relayed(str(wire.pop("run", "")), parse_ui_event(wire))
    except (TypeError, ValueError, ValidationError):
        return None


def resubscribe_delay(failures: int) -> float:
    """Seconds before subscribing again after ``failures`` failed subscriptions in a row:
    1, 2, 4, then every 5."""
    return min(RESUBSCRIBE_MAX_SECONDS, 2.0 ** max(failures - 1, 0))


async def _listen() -> None:
    """Fan the Redis channel out to this process's watchers, for the life of the process.

    It once ended when the process had no watcher left: a tab that began watching while it
    was ending was left with no subscription, and saw other tabs' messages only when it
    reloaded (1 of 6 trials: not within 30 s). A dropped Redis connection ended it too, for
    good. Now a drop tells every watcher the channel is cut (:class:`Paused`), a new
    subscription follows (:func:`resubscribe_delay`), and then every watcher is told to read
    its thread again: what was published meanwhile is lost.
    """
    global _paused
    failures = 0
    while True:
        pubsub = _client().pubsub(ignore_subscribe_messages=True)
        try:
            await pubsub.psubscribe(_CHANNEL + "*")
            _paused = False
            if failures:
                _log.warning("the live channel's Redis subscription is back")
                for thread_id in list(_watchers):
                    _deliver(thread_id, _RESYNC)
            failures = 0
            if _subscribed is not None:
                _subscribed.set()
            while True:
                message = await pubsub.get_message(timeout=1.0)
                if message is None or message.get("type") != "pmessage":
                    continue
                thread_id = str(message["channel"]).removeprefix(_CHANNEL)
                event = read_frame(message["data"])
                if event is None:
                    _log.warning(
                        "skipped a malformed frame on thread %s's live channel: %.80r",
                        thread_id,
                        message["data"],
                    )
                    continue
                _deliver(thread_id, event)
        except Exception:  # Redis went away or dropped us: subscribe again
            failures += 1
            if not _paused:  # every tab says so until the subscription is back
                _paused = True
                for thread_id in list(_watchers):
                    _deliver(thread_id, _PAUSED)
            _log.warning(
                "the live channel's Redis subscription dropped; subscribing again in %.0f s",
                resubscribe_delay(failures),
                exc_info=failures == 1,
            )
        finally:
            with contextlib.suppress(Exception):
                await pubsub.aclose()
        await asyncio.sleep(resubscribe_delay(failures))


async def _ensure_listener() -> None:
    """Start this process's Redis subscription if needed, and wait until it is made: an
    event published after ``watch`` returns must reach the new watcher."""
    global _listener, _subscribed, _redis_client
    if not _redis_url():
        return
    loop = asyncio.get_running_loop()
    if _listener is None or _listener.done() or _listener.get_loop() is not loop:
        if _listener is not None and _listener.get_loop() is not loop:
            _redis_client = None  # a client belongs to the loop it was made in
        _subscribed = asyncio.Event()
        _listener = loop.create_task(_listen(), name="baton-live-listener")
    if _subscribed is not None:
        try:
            await asyncio.wait_for(_subscribed.wait(), 5)
        except TimeoutError:
            _log.warning("the live channel's Redis subscription is slow to start")


async def publish(thread_id: str, run_id: str, event: UiEvent) -> None:
    """Send one event of run ``run_id`` to every tab watching the thread."""
    if not _redis_url():
        _deliver(thread_id, Relayed(run_id, event))
        return
    try:
        wire = {**event.model_dump(), "run": run_id}
        await _client().publish(_CHANNEL + thread_id, json.dumps(wire, default=str))
    except Exception:  # other tabs miss a live event; the thread itself is unharmed
        _log.warning("could not publish a live event of thread %s", thread_id, exc_info=True)


async def resync(thread_id: str) -> None:
    """Tell every tab on the thread to read it again: a change made outside a run (an undo,
    a reply chosen back) that no run event describes."""
    await publish(thread_id, new_run_id(), RESYNC)


@contextlib.asynccontextmanager
async def watch(thread_id: str) -> AsyncIterator[asyncio.Queue[Relayed]]:
    """A queue of the thread's live events for as long as the block runs."""
    queue: asyncio.Queue[Relayed] = asyncio.Queue(maxsize=QUEUE_LIMIT)
    _watchers[thread_id].add(queue)
    await _ensure_listener()
    try:
        yield queue
    finally:
        _watchers[thread_id].discard(queue)
        if not _watchers[thread_id]:
            del _watchers[thread_id]


async def settled(
    queue: asyncio.Queue[Relayed],
    relevant: Callable[[UiEvent], bool],
    *,
    every: float,
    idle: float,
    urgent: Callable[[UiEvent], bool] = lambda _: False,
) -> AsyncIterator[bool]:
    """Take the events of ``queue`` (from :func:`watch`) and yield True once a burst that
    held a ``relevant`` event is over (the queue is empty), at most every ``every`` seconds,
    or as soon as it is over when it held an ``urgent`` one (a run's end: what the tab shows
    then must be current); yield False after ``idle`` seconds without events, for the
    caller's own checks."""
    dirty, hurry, settled_at = False, False, -every
    while True:
        wait = idle
        if dirty:
            wait = 0.0 if hurry else settled_at + every - time.monotonic()
            if wait <= 0 and not queue.qsize():
                dirty, hurry, settled_at = False, False, time.monotonic()
                yield True
                continue
            # Never 0: wait_for(get(), 0) gives up before the get can take an item, and the
            # loop would spin without ever emptying the queue.
            wait = max(wait, 0.05)
        try:
            event = (await asyncio.wait_for(queue.get(), wait)).event
        except TimeoutError:
            if not dirty:
                yield False
            continue
        dirty = dirty or relevant(event)
        hurry = hurry or (dirty and urgent(event))


async def _mark(thread_id: str, run_id: str, alive: bool) -> None:
    """Runs are members of a sorted set scored by when their flag expires."""
    key = _RUNNING + thread_id
    if not _redis_url():
        runs = _local_runs[thread_id]
        if alive:
            runs[run_id] = time.time() + RUNNING_TTL_SECONDS
        else:
            runs.pop(run_id, None)
            if not runs:
                del _local_runs[thread_id]
        return
    try:
        client = _client()
        if alive:
            await client.zadd(key, {run_id: time.time() + RUNNING_TTL_SECONDS})
            await client.expire(key, RUNNING_TTL_SECONDS * 2)
        else:
            await client.zrem(key, run_id)
    except Exception:  # the flag is a display aid; the run goes on without it
        _log.warning("could not mark run %s of thread %s", run_id, thread_id, exc_info=True)


async def run_started(thread_id: str, run_id: str) -> None:
    await _mark(thread_id, run_id, alive=True)
    await publish(thread_id, run_id, RunChanged(running=True))


async def run_alive(thread_id: str, run_id: str) -> None:
    """Renew the run's flag; called while it runs, more often than ``RUNNING_TTL_SECONDS``."""
    await _mark(thread_id, run_id, alive=True)


async def run_ended(thread_id: str, run_id: str) -> None:
    await _mark(thread_id, run_id, alive=False)
    await publish(thread_id, run_id, RunChanged(running=False))


async def is_running(thread_id: str) -> bool:
    """Whether some worker runs the thread now (a turn, a resume or a handoff)."""
    now = time.time()
    if not _redis_url():
        return any(expires > now for expires in _local_runs.get(thread_id, {}).values())
    try:
        return bool(await _client().zcount(_RUNNING + thread_id, now, "+inf"))
    except Exception:
        return False


def _sender_only(event: UiEvent) -> bool:
    """What only the tab that sent a message needs: its outbox acknowledgement and refusals."""
    return isinstance(event, AcceptedEvent) or (
        isinstance(event, Refused) and bool(event.client_id)
    )


LIVE_FLUSH_SECONDS = 0.08  # streamed tokens reach other tabs in batches, like the sender's


def new_run_id() -> str:
    return uuid.uuid4().hex


async def relay(
    thread_id: str, run_id: str, events: AsyncIterator[UiEvent]
) -> AsyncGenerator[UiEvent, None]:
    """Pass a run's events through, publishing them under ``run_id`` so every other tab
    on the thread (in any worker) follows the run; the thread counts as running meanwhile."""
    await run_started(thread_id, run_id)
    tokens, flushed_at, renewed_at = "", time.monotonic(), time.monotonic()
    try:
        async for event in events:
            yield event
            if _sender_only(event):
                continue
            if isinstance(event, TokenEvent):
                tokens += event.text
                if time.monotonic() - flushed_at < LIVE_FLUSH_SECONDS:
                    continue
            if tokens:
                await publish(thread_id, run_id, TokenEvent(text=tokens))
                tokens, flushed_at = "", time.monotonic()
            if not isinstance(event, TokenEvent):
                await publish(thread_id, run_id, event)
            if time.monotonic() - renewed_at > RUNNING_TTL_SECONDS / 3:
                await run_alive(thread_id, run_id)
                renewed_at = time.monotonic()
    finally:
        if tokens:
            await publish(thread_id, run_id, TokenEvent(text=tokens))
        await run_ended(thread_id, run_id)
