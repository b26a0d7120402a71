"""A tab's state while Redis is cut (chat_app.upstream.ride_out_redis_cuts): Reflex's Redis
state manager, given to a stand-in app, against the real Redis behind a TCP proxy this test
cuts (the shared Redis never stops)."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest
import reflex as rx

from chat_app import upstream
from tests.browser.test_scale_out import _redis
from tests.tcp_proxy import proxied

pytestmark = pytest.mark.redis


class CutCounterState(rx.State):
    count: int = 0


class CutOtherState(rx.State):
    note: str = ""


def _counter(root) -> CutCounterState:
    return root.get_substate(CutCounterState.get_full_name().split("."))


def test_events_run_on_the_tabs_copy_while_redis_is_cut_and_are_written_back() -> None:
    import redis.asyncio
    from reflex.istate.manager.redis import StateManagerRedis
    from reflex.istate.manager.token import BaseStateToken

    host_port, db = _redis().removeprefix("redis://").rsplit("/", 1)
    host, port = host_port.split(":")

    async def scenario(proxy) -> tuple[int, int, int]:
        client = redis.asyncio.Redis.from_url(proxy.url(path=f"/{db}"))
        direct = StateManagerRedis(redis=redis.asyncio.Redis.from_url(_redis()))

        class App:  # what ride_out_redis_cuts reads of Reflex's app
            _state_manager = StateManagerRedis(redis=client)
            event_namespace = None

        app = App()
        assert upstream.ride_out_redis_cuts(app)
        manager = app._state_manager
        tab = uuid.uuid4().hex
        counter = BaseStateToken(ident=tab, cls=CutCounterState)
        other = BaseStateToken(ident=tab, cls=CutOtherState)
        async with manager.modify_state(counter) as root:
            _counter(root).count = 1
        proxy.cut()
        try:
            for _ in range(2):  # a state this tab's events loaded, and one they did not
                async with manager.modify_state(counter) as root:
                    _counter(root).count += 1
            async with manager.modify_state(other) as root:
                root.get_substate(CutOtherState.get_full_name().split(".")).note = "cut"
            during = _counter(await manager.get_state(counter, for_state_instance=root)).count
        finally:
            proxy.restore()
        deadline, stored = time.monotonic() + 15, 0
        while time.monotonic() < deadline and stored != 3:
            await asyncio.sleep(0.5)
            stored = _counter(await direct.get_state(counter)).count
        async with manager.modify_state(counter) as root:  # Redis answers: as before the cut
            _counter(root).count += 1
        after = _counter(await direct.get_state(counter)).count
        await client.aclose()
        await direct.redis.aclose()
        return during, stored, after

    with proxied((host, int(port))) as proxy:
        assert asyncio.run(scenario(proxy)) == (3, 3, 4)
