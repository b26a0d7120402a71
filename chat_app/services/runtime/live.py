"""The live thread channel: every tab on a thread sees every run of it, from any worker.

A run (a send, a resume of queued messages, a ``/handoff``) streams its UI events to the tab
that started it and publishes them here under the run's id. Every other tab watching the
thread, in this process or another, receives them and applies them the same way; the
starting tab skips its own run's copy. Whether a thread has a run going is kept here too, so
a tab opened (or reloaded) mid-turn shows the turn and its Stop button.

One :class:`LiveChannel` per process, built by the composition root (the ``App``'s ``live``)
from the settings' Redis URL. With a URL the channel is Redis pub/sub (one pattern subscription per process,
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
    "LiveChannel",
    "Relayed",
    "Paused",
    "read_frame",
    "new_run_id",
    "settled",
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
LIVE_FLUSH_SECONDS = 0.08  # streamed tokens reach other tabs in batches, like the sender's
_CHANNEL = "baton:live:"
_CLIENT_NAME = "baton-live"  # how the process's connections show in Redis's CLIENT LIST
_RUNNING = "baton:running:"


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


def new_run_id() -> str:
    return uuid.uuid4().hex


class LiveChannel:
    """The process's live channel: its watchers, the running flags of its runs (without
    Redis), and its Redis client and subscription (with one). ``redis_url`` empty: everything
    stays in this process. ``queue_limit`` is how far a watcher may lag before it reloads;
    ``client_name`` is how the channel's Redis connections show in ``CLIENT LIST``."""

    def __init__(
        self,
        redis_url: str = "",
        *,
        queue_limit: int = QUEUE_LIMIT,
        client_name: str = _CLIENT_NAME,
    ) -> None:
        self.redis_url = redis_url
        self.queue_limit = queue_limit
        self.client_name = client_name
        self._watchers: dict[str, set[asyncio.Queue[Relayed]]] = defaultdict(set)
        self._local_runs: dict[str, dict[str, float]] = defaultdict(dict)  # run -> expires
        self._redis_client: Any = None
        self._listener: asyncio.Task[None] | None = None
        self._subscribed: asyncio.Event | None = None
        self._paused = False

    def _client(self) -> Any:
        if self._redis_client is None:
            import redis.asyncio as redis

            # Undecodable bytes on the channel become U+FFFD and then a malformed frame that
            # is skipped; a decoding error would instead drop the subscription.
            self._redis_client = redis.Redis.from_url(
                self.redis_url,
                decode_responses=True,
                encoding_errors="replace",
                client_name=self.client_name,
            )
        return self._redis_client

    async def aclose(self) -> None:
        """End the channel's Redis subscription and close its client (a process's channel
        lives as long as the process; a test's ends with the test)."""
        listener, self._listener = self._listener, None
        if listener is not None and listener.get_loop() is asyncio.get_running_loop():
            listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await listener
        client, self._redis_client = self._redis_client, None
        if client is not None:
            with contextlib.suppress(Exception):
                await client.aclose()

    def paused(self) -> bool:
        """Whether the channel is cut now: its Redis subscription dropped and is not made
        again yet (with no Redis, never)."""
        return self._paused

    def _deliver(self, thread_id: str, event: Relayed) -> None:
        for queue in list(self._watchers.get(thread_id, ())):
            try:
                queue.put_nowait(event)
            except asyncio.QueueFull:
                # Too far behind to catch up event by event: it reloads the thread instead.
                with contextlib.suppress(asyncio.QueueFull):
                    queue.get_nowait()
                    queue.put_nowait(_RESYNC)

    async def _listen(self) -> None:
        """Fan the Redis channel out to this process's watchers, for the life of the process.

        It once ended when the process had no watcher left: a tab that began watching while
        it was ending was left with no subscription, and saw other tabs' messages only when
        it reloaded (1 of 6 trials: not within 30 s). A dropped Redis connection ended it
        too, for good. Now a drop tells every watcher the channel is cut (:class:`Paused`), a
        new subscription follows (:func:`resubscribe_delay`), and then every watcher is told
        to read its thread again: what was published meanwhile is lost.
        """
        failures = 0
        while True:
            pubsub = self._client().pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.psubscribe(_CHANNEL + "*")
                self._paused = False
                if failures:
                    _log.warning("the live channel's Redis subscription is back")
                    for thread_id in list(self._watchers):
                        self._deliver(thread_id, _RESYNC)
                failures = 0
                if self._subscribed is not None:
                    self._subscribed.set()
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
                    self._deliver(thread_id, event)
            except Exception:  # Redis went away or dropped us: subscribe again
                failures += 1
                if not self._paused:  # every tab says so until the subscription is back
                    self._paused = True
                    for thread_id in list(self._watchers):
                        self._deliver(thread_id, _PAUSED)
                _log.warning(
                    "the live channel's Redis subscription dropped; subscribing again in %.0f s",
                    resubscribe_delay(failures),
                    exc_info=failures == 1,
                )
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
            await asyncio.sleep(resubscribe_delay(failures))

    async def _ensure_listener(self) -> None:
        """Start this process's Redis subscription if needed, and wait until it is made: an
        event published after ``watch`` returns must reach the new watcher."""
        if not self.redis_url:
            return
        loop = asyncio.get_running_loop()
        listener = self._listener
        if listener is None or listener.done() or listener.get_loop() is not loop:
            if listener is not None and listener.get_loop() is not loop:
                self._redis_client = None  # a client belongs to the loop it was made in
            self._subscribed = asyncio.Event()
            self._listener = loop.create_task(self._listen(), name="baton-live-listener")
        if self._subscribed is not None:
            try:
                await asyncio.wait_for(self._subscribed.wait(), 5)
            except TimeoutError:
                _log.warning("the live channel's Redis subscription is slow to start")

    async def publish(self, thread_id: str, run_id: str, event: UiEvent) -> None:
        """Send one event of run ``run_id`` to every tab watching the thread."""
        if not self.redis_url:
            self._deliver(thread_id, Relayed(run_id, event))
            return
        try:
            wire = {**event.model_dump(), "run": run_id}
            await self._client().publish(_CHANNEL + thread_id, json.dumps(wire, default=str))
        except Exception:  # other tabs miss a live event; the thread itself is unharmed
            _log.warning("could not publish a live event of thread %s", thread_id, exc_info=True)

    async def resync(self, thread_id: str) -> None:
        """Tell every tab on the thread to read it again: a change made outside a run (an
        undo, a reply chosen back) that no run event describes."""
        await self.publish(thread_id, new_run_id(), RESYNC)

    @contextlib.asynccontextmanager
    async def watch(self, thread_id: str) -> AsyncIterator[asyncio.Queue[Relayed]]:
        """A queue of the thread's live events for as long as the block runs. A watcher that
        begins while the channel is cut hears so first, as the ones it had then did."""
        queue: asyncio.Queue[Relayed] = asyncio.Queue(maxsize=self.queue_limit)
        if self._paused:
            queue.put_nowait(_PAUSED)
        self._watchers[thread_id].add(queue)
        await self._ensure_listener()
        try:
            yield queue
        finally:
            self._watchers[thread_id].discard(queue)
            if not self._watchers[thread_id]:
                del self._watchers[thread_id]

    async def _mark(self, thread_id: str, run_id: str, alive: bool) -> None:
        """Runs are members of a sorted set scored by when their flag expires."""
        key = _RUNNING + thread_id
        if not self.redis_url:
            runs = self._local_runs[thread_id]
            if alive:
                runs[run_id] = time.time() + RUNNING_TTL_SECONDS
            else:
                runs.pop(run_id, None)
                if not runs:
                    del self._local_runs[thread_id]
            return
        try:
            client = self._client()
            if alive:
                await client.zadd(key, {run_id: time.time() + RUNNING_TTL_SECONDS})
                await client.expire(key, RUNNING_TTL_SECONDS * 2)
            else:
                await client.zrem(key, run_id)
        except Exception:  # the flag is a display aid; the run goes on without it
            _log.warning("could not mark run %s of thread %s", run_id, thread_id, exc_info=True)

    async def run_started(self, thread_id: str, run_id: str) -> None:
        await self._mark(thread_id, run_id, alive=True)
        await self.publish(thread_id, run_id, RunChanged(running=True))

    async def run_alive(self, thread_id: str, run_id: str) -> None:
        """Renew the run's flag; called while it runs, more often than
        ``RUNNING_TTL_SECONDS``."""
        await self._mark(thread_id, run_id, alive=True)

    async def run_ended(self, thread_id: str, run_id: str) -> None:
        await self._mark(thread_id, run_id, alive=False)
        await self.publish(thread_id, run_id, RunChanged(running=False))

    async def is_running(self, thread_id: str) -> bool:
        """Whether some worker runs the thread now (a turn, a resume or a handoff)."""
        now = time.time()
        if not self.redis_url:
            runs = self._local_runs.get(thread_id, {})
            return any(expires > now for expires in runs.values())
        try:
            return bool(await self._client().zcount(_RUNNING + thread_id, now, "+inf"))
        except Exception:
            return False

    async def relay(
        self, thread_id: str, run_id: str, events: AsyncIterator[UiEvent]
    ) -> AsyncGenerator[UiEvent, None]:
        """Pass a run's events through, publishing them under ``run_id`` so every other tab
        on the thread (in any worker) follows the run; the thread counts as running
        meanwhile."""
        await self.run_started(thread_id, run_id)
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
                    await self.publish(thread_id, run_id, TokenEvent(text=tokens))
                    tokens, flushed_at = "", time.monotonic()
                if not isinstance(event, TokenEvent):
                    await self.publish(thread_id, run_id, event)
                if time.monotonic() - renewed_at > RUNNING_TTL_SECONDS / 3:
                    await self.run_alive(thread_id, run_id)
                    renewed_at = time.monotonic()
        finally:
            if tokens:
                await self.publish(thread_id, run_id, TokenEvent(text=tokens))
            await self.run_ended(thread_id, run_id)


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


def _sender_only(event: UiEvent) -> bool:
    """What only the tab that sent a message needs: its outbox acknowledgement and refusals."""
    return isinstance(event, AcceptedEvent) or (
        isinstance(event, Refused) and bool(event.client_id)
    )
