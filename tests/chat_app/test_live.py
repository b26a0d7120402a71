"""The live thread channel: in this process, and over Redis when a server answers."""

from __future__ import annotations

import asyncio
import contextlib
import os
import uuid
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

from agent_core.events import DoneEvent, TokenEvent
from chat_app.services.presentation.ui_events import Resync, RunChanged, TitleChanged
from chat_app.services.runtime import live
from chat_app.services.runtime.live import LiveChannel

REDIS_URL = os.environ.get("BATON_TEST_REDIS_URL", "redis://127.0.0.1:6379/9")


def _redis_or_skip() -> str:
    redis = pytest.importorskip("redis")
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        pytest.skip(f"Redis is not reachable at {REDIS_URL}: {exc}")
    return REDIS_URL


@pytest.fixture(params=["process", "redis"])
async def channel(request) -> AsyncIterator[LiveChannel]:
    """A channel of its own for each test (the app's ``live`` is built the same way from
    its settings' Redis URL); its subscription ends with the test."""
    built = LiveChannel(_redis_or_skip() if request.param == "redis" else "")
    yield built
    await built.aclose()


@contextlib.asynccontextmanager
async def redis_channel(url: str) -> AsyncIterator[LiveChannel]:
    """A channel on ``url`` whose connections carry a name of their own (the Redis server is
    shared: a test kills or counts only its own connections)."""
    built = LiveChannel(url, client_name=f"baton-live-test-{uuid.uuid4().hex[:8]}")
    try:
        yield built
    finally:
        await built.aclose()


async def _next(queue: asyncio.Queue[live.Relayed]) -> live.Relayed:
    return await asyncio.wait_for(queue.get(), 5)


async def test_every_watcher_of_a_thread_gets_its_runs_events_in_order(channel) -> None:
    thread, other = uuid.uuid4().hex, uuid.uuid4().hex
    async with (
        channel.watch(thread) as first,
        channel.watch(thread) as second,
        channel.watch(other) as elsewhere,
    ):
        await asyncio.sleep(0.3)  # the Redis subscription is made by a background task
        assert not await channel.is_running(thread)
        await channel.run_started(thread, "run-1")
        assert await channel.is_running(thread)
        for n in range(5):
            await channel.publish(thread, "run-1", TitleChanged(title=f"title {n}"))
        await channel.run_ended(thread, "run-1")
        assert not await channel.is_running(thread)
        for queue in (first, second):
            events = [await _next(queue) for _ in range(7)]
            assert events[0] == live.Relayed("run-1", RunChanged(running=True))
            assert [e.event for e in events[1:6]] == [
                TitleChanged(title=f"title {n}") for n in range(5)
            ]
            assert events[6] == live.Relayed("run-1", RunChanged(running=False))
        assert elsewhere.empty()


async def test_a_thread_runs_while_any_of_its_runs_does(channel) -> None:
    thread = uuid.uuid4().hex
    await channel.run_started(thread, "turn")
    await channel.run_started(thread, "queued-send")  # a send that only queued its message
    await channel.run_ended(thread, "queued-send")
    assert await channel.is_running(thread)
    await channel.run_ended(thread, "turn")
    assert not await channel.is_running(thread)


async def test_a_run_whose_worker_died_stops_counting_after_its_time_to_live(
    channel, monkeypatch
) -> None:
    thread = uuid.uuid4().hex
    await channel.run_started(thread, "killed")
    clock = live.time.time()
    monkeypatch.setattr(live.time, "time", lambda: clock + live.RUNNING_TTL_SECONDS + 1)
    assert not await channel.is_running(thread)


async def test_a_watcher_that_falls_behind_is_told_to_reload() -> None:
    channel = LiveChannel(queue_limit=3)
    thread = uuid.uuid4().hex
    async with channel.watch(thread) as queue:
        for n in range(10):
            await channel.publish(thread, "run", TitleChanged(title=f"title {n}"))
        kinds = [queue.get_nowait().event.type for _ in range(queue.qsize())]
    assert "resync" in kinds and len(kinds) == 3


def test_settled_waits_for_a_burst_to_end_and_takes_every_event() -> None:
    # A burst with a relevant event yields True once, after the queue is empty; while the
    # minimum interval runs, events are still taken off the queue (an earlier version spun
    # on wait_for(get(), 0), which never takes an item).
    async def scenario() -> tuple[list[tuple[bool, int]], int]:
        queue: asyncio.Queue[live.Relayed] = asyncio.Queue()
        seen: list[tuple[bool, int]] = []
        spins = 0
        reply, token = live.Relayed("r", Resync()), live.Relayed("r", TokenEvent(text="x"))

        def relevant(event) -> bool:
            return isinstance(event, Resync)

        async def feed() -> None:
            for n in range(40):  # a burst with a reply early in it, queued at once
                queue.put_nowait(reply if n == 2 else token)
            await asyncio.sleep(0.3)
            for _ in range(10):  # tokens only: nothing to read again
                queue.put_nowait(token)
            await asyncio.sleep(0.05)
            queue.put_nowait(reply)  # within `every` of the first read

        feeder = asyncio.create_task(feed())
        started = asyncio.get_running_loop().time()
        async for due in live.settled(queue, relevant, every=0.5, idle=0.2):
            spins += 1
            seen.append((due, queue.qsize()))
            if asyncio.get_running_loop().time() - started > 1.2:
                break
        await feeder
        return seen, spins

    seen, spins = asyncio.run(asyncio.wait_for(scenario(), 10))
    reads = [size for due, size in seen if due]
    assert reads == [0, 0]  # the first burst, then the late reply after `every`
    assert spins < 20  # idle ticks and reads only: no loop per event or per poll


def test_settled_reads_at_once_after_an_urgent_event_even_within_the_interval() -> None:
    async def scenario() -> list[float]:
        queue: asyncio.Queue[live.Relayed] = asyncio.Queue()
        loop = asyncio.get_running_loop()
        started, reads = loop.time(), []
        queue.put_nowait(live.Relayed("r", Resync()))

        async def feed() -> None:
            await asyncio.sleep(0.1)
            queue.put_nowait(live.Relayed("r", DoneEvent()))  # a run's end, within `every`

        feeder = asyncio.create_task(feed())
        async for due in live.settled(
            queue,
            lambda e: True,
            every=5.0,
            idle=0.05,
            urgent=lambda e: isinstance(e, DoneEvent),
        ):
            if due:
                reads.append(loop.time() - started)
            if len(reads) == 2 or loop.time() - started > 2:
                break
        await feeder
        return reads

    reads = asyncio.run(asyncio.wait_for(scenario(), 10))
    assert len(reads) == 2 and reads[1] < 1.0  # not held back for the 5 s interval


async def test_a_rename_reaches_every_tab_on_the_chat(channel, app) -> None:
    from chat_app.services.conversation.threads import chats as threads

    app = replace(app, live=channel)
    thread_id = uuid.uuid4().hex
    async with channel.watch(thread_id) as first, channel.watch(thread_id) as second:
        await threads.announce_title(app, thread_id, "Invoices, renamed")
        for queue in (first, second):
            event = await _next(queue)
            assert event.event == TitleChanged(title="Invoices, renamed")


async def test_the_subscription_outlives_the_last_watcher() -> None:
    """It once ended with the process's last watcher, and a tab that began watching while it
    was ending was left without one: it saw other tabs' messages only when it reloaded."""
    import redis

    url = _redis_or_skip()
    async with redis_channel(url) as channel:
        await _outlives_the_last_watcher(channel, url, redis)


async def _outlives_the_last_watcher(channel: LiveChannel, url: str, redis) -> None:
    thread = uuid.uuid4().hex
    async with channel.watch(thread):
        pass
    await asyncio.sleep(1.5)  # the listener's read times out with no watcher left
    subscribed = [
        client
        for client in redis.Redis.from_url(url).client_list()
        if client.get("name") == channel.client_name and client.get("psub") == "1"
    ]
    assert subscribed, "no subscription left once the last watcher had gone"
    async with channel.watch(thread) as queue:
        await channel.publish(thread, "run", TitleChanged(title="one"))
        assert (await _next(queue)).event == TitleChanged(title="one")


def test_the_subscription_is_made_again_1_s_doubling_to_5_s_after_a_drop() -> None:
    assert [live.resubscribe_delay(n) for n in (1, 2, 3, 4, 9)] == [1, 2, 4, 5, 5]


async def test_after_redis_drops_the_subscription_watchers_reload_and_follow_again() -> None:
    import redis

    url = _redis_or_skip()
    thread = uuid.uuid4().hex
    async with redis_channel(url) as channel, channel.watch(thread) as queue:
        admin = redis.Redis.from_url(url)
        ours = [
            client["id"]
            for client in admin.client_list()
            if client.get("name") == channel.client_name
        ]
        assert ours, "the subscription's connection is not named"
        for client_id in ours:  # only this test's connections: the server is shared
            admin.client_kill_filter(_id=client_id)
        assert isinstance((await asyncio.wait_for(queue.get(), 8)).event, live.Paused)
        assert isinstance((await asyncio.wait_for(queue.get(), 8)).event, Resync)
        await channel.publish(thread, "run", TitleChanged(title="two"))
        assert (await _next(queue)).event == TitleChanged(title="two")


@pytest.mark.parametrize(
    "frame",
    [
        b"42",  # JSON, but not an object
        b"not json at all",
        b"\xff\xfe\x00 not utf-8",
        b'{"run": "r", "type": "token"}',  # an event without its data
    ],
    ids=["number", "text", "bytes", "partial"],
)
async def test_a_malformed_frame_is_logged_and_skipped_and_the_subscription_stays(
    caplog, frame: bytes
) -> None:
    """Four malformed frames once dropped the process's subscription, and every open tab
    reloaded its thread."""
    import redis

    url = _redis_or_skip()
    thread = uuid.uuid4().hex
    async with redis_channel(url) as channel, channel.watch(thread) as queue:
        redis.Redis.from_url(url).publish(live._CHANNEL + thread, frame)
        await channel.publish(thread, "run", TitleChanged(title="after the bad frame"))
        assert (await _next(queue)).event == TitleChanged(title="after the bad frame")
        await asyncio.sleep(1.2)  # a dropped subscription would be made again by now
        assert queue.empty(), "the tab was told to reload"
    assert any("malformed" in record.getMessage() for record in caplog.records)


async def test_while_redis_is_cut_watchers_hear_the_channel_is_paused_then_reload() -> None:
    """Through a proxy the test cuts for 3 s: the shared Redis never stops."""
    from tests.tcp_proxy import proxied

    url = _redis_or_skip()
    host, port = url.removeprefix("redis://").rsplit("/", 1)[0].split(":")
    with proxied((host, int(port))) as proxy:
        thread = uuid.uuid4().hex
        async with (
            redis_channel(proxy.url(path="/9")) as channel,
            channel.watch(thread) as first,
            channel.watch(thread) as second,
        ):
            proxy.cut()
            for queue in (first, second):
                assert isinstance((await _next(queue)).event, live.Paused)
            assert channel.paused()
            await asyncio.sleep(3)
            proxy.restore()
            for queue in (first, second):
                assert isinstance((await asyncio.wait_for(queue.get(), 10)).event, Resync)
            assert not channel.paused()
            await channel.publish(thread, "run", TitleChanged(title="back"))
            for queue in (first, second):
                assert (await _next(queue)).event == TitleChanged(title="back")


async def test_a_watcher_that_begins_while_redis_is_cut_hears_so_first() -> None:
    """A tab whose watcher started during an outage (its page loaded late) was never told
    live updates were paused: the channel had said so to the watchers it had then."""
    from tests.tcp_proxy import proxied

    url = _redis_or_skip()
    host, port = url.removeprefix("redis://").rsplit("/", 1)[0].split(":")
    with proxied((host, int(port))) as proxy:
        thread = uuid.uuid4().hex
        async with redis_channel(proxy.url(path="/9")) as channel, channel.watch(thread) as first:
            proxy.cut()
            assert isinstance((await _next(first)).event, live.Paused)
            async with channel.watch(thread) as late:
                assert isinstance((await _next(late)).event, live.Paused)
                proxy.restore()
                assert isinstance((await asyncio.wait_for(late.get(), 10)).event, Resync)
