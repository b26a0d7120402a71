"""A Redis outage under a scaled server (PostgreSQL, Redis, two workers), made by cutting a
TCP proxy the test controls between the app and Redis: the shared Redis itself never stops.

Tabs here are websocket clients speaking as the page does (bench.load's), not chromium: what
is checked is what the server sends each tab.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Iterator

import pytest

from bench.load import (
    _TOAST,
    EventNames,
    ReflexSocket,
    _event,
    _fetch_cookie,
    await_turn_end,
    open_new_chat,
)
from tests.browser.app_server import AppServer, run_async, running_app
from tests.browser.test_scale_out import _postgres_database, _redis
from tests.tcp_proxy import TcpProxy, proxied

pytestmark = [pytest.mark.browser, pytest.mark.redis]

PAUSED = "Live updates are paused"
OUTAGE_SECONDS = 15


@pytest.fixture(scope="module")
def outage_server(tmp_path_factory) -> Iterator[tuple[AppServer, TcpProxy]]:
    redis_url = _redis()
    host_port, db = redis_url.removeprefix("redis://").rsplit("/", 1)
    host, port = host_port.split(":")
    with proxied((host, int(port))) as proxy:
        for database_url in _postgres_database():
            env = {
                "REFLEX_DB_URL": database_url,
                "REFLEX_REDIS_URL": proxy.url(path=f"/{db}"),
                "GRANIAN_WORKERS": "2",
                "BATON_SIM_WINDOW": "6000",
                "BATON_SIM_DELAY": "0.01",
            }
            with running_app(tmp_path_factory.mktemp("baton-outage"), env) as server:
                yield server, proxy


async def _open_tab(server: AppServer, names: EventNames, cookie: str, path: str) -> ReflexSocket:
    socket = await ReflexSocket.open(server.url, cookie, _event(names.hydrate, path))
    await socket.emit(_event(names.on_load, path))
    loaded = f'"thread_key_rx_state_":"{path.rsplit("/", 1)[-1]}"'
    deadline = time.monotonic() + 60
    while loaded not in await socket.next_update(deadline):
        pass
    return socket


async def _tabs_on_one_chat(
    server: AppServer, count: int, cookie: str = ""
) -> tuple[list[ReflexSocket], str]:
    names = EventNames.of_app()
    cookie = cookie or await asyncio.to_thread(_fetch_cookie, server.url)
    first = await ReflexSocket.open(server.url, cookie, _event(names.hydrate, "/"))
    path, _ = await open_new_chat(
        first, names, f"outage chat {uuid.uuid4().hex[:6]}", time.monotonic() + 90
    )
    await first.emit(_event(names.on_load, path))
    others = [await _open_tab(server, names, cookie, path) for _ in range(count - 1)]
    await asyncio.sleep(3)  # the first turn ends; every tab's watcher is subscribed
    return [first, *others], path


async def _sees(socket: ReflexSocket, text: str, seconds: float) -> bool:
    """Whether an update carrying ``text`` reaches ``socket`` within ``seconds``."""
    deadline = time.monotonic() + seconds
    try:
        while text not in await socket.next_update(deadline):
            pass
    except TimeoutError:
        return False
    return True


def test_every_tab_says_live_updates_are_paused_while_redis_is_cut(outage_server) -> None:
    server, proxy = outage_server

    async def scenario() -> list[bool]:
        tabs, _ = await _tabs_on_one_chat(server, 3)
        proxy.cut()
        try:
            return list(await asyncio.gather(*(_sees(tab, PAUSED, 12) for tab in tabs)))
        finally:
            proxy.restore()
            for tab in tabs:
                await tab.close()

    assert run_async(scenario()) == [True, True, True]


def test_every_tab_recovers_by_itself_after_a_15_s_redis_outage(outage_server) -> None:
    server, proxy = outage_server
    names = EventNames.of_app()

    async def scenario() -> list[bool]:
        tabs, path = await _tabs_on_one_chat(server, 3)
        proxy.cut()
        await asyncio.sleep(OUTAGE_SECONDS)
        proxy.restore()
        await asyncio.sleep(5)  # Redis answers again; nobody reloads anything
        seen = []
        for sender in tabs:
            text = f"after the outage {uuid.uuid4().hex[:8]}"
            await sender.emit(
                _event(names.submit, path, form={"message": text, "client_id": uuid.uuid4().hex})
            )
            others = [tab for tab in tabs if tab is not sender]
            seen += await asyncio.gather(*(_sees(tab, text, 30) for tab in others))
        for tab in tabs:
            await tab.close()
        return seen

    assert run_async(scenario()) == [True] * 6


def test_a_message_sent_while_redis_is_cut_is_stored_not_refused(outage_server) -> None:
    """PostgreSQL is up: the message is stored and acknowledged during the cut (the tab's
    state comes from its worker's copy), and a tab opened after the cut shows it."""
    server, proxy = outage_server
    names = EventNames.of_app()

    async def scenario() -> tuple[str, bool]:
        cookie = await asyncio.to_thread(_fetch_cookie, server.url)  # one user
        tabs, path = await _tabs_on_one_chat(server, 1, cookie)
        sender = tabs[0]
        with contextlib.suppress(TimeoutError):  # the chat's first turn ends
            await await_turn_end(sender, time.monotonic() + 20)
        text = f"sent during the cut {uuid.uuid4().hex[:8]}"
        client_id = f"outage.1.{uuid.uuid4().hex[:8]}"
        proxy.cut()
        try:
            await asyncio.sleep(1)
            await sender.emit(
                _event(names.submit, path, form={"message": text, "client_id": client_id})
            )
            answer, deadline = "silent", time.monotonic() + 20
            with contextlib.suppress(TimeoutError):
                while answer == "silent":
                    update = await sender.next_update(deadline)
                    if client_id in update and "batonOutbox.accepted" in update:
                        answer = "accepted"
                    elif client_id in update and "batonOutbox.refused" in update:
                        answer = "refused"
                    elif any(kind == "error" for kind, _ in _TOAST.findall(update)):
                        answer = "failed"
        finally:
            proxy.restore()
            await sender.close()
        await asyncio.sleep(3)
        later = await ReflexSocket.open(server.url, cookie, _event(names.hydrate, path))
        try:
            await later.emit(_event(names.on_load, path))
            return answer, await _sees(later, text, 30)  # in the chat as it loads
        finally:
            await later.close()

    assert run_async(scenario()) == ("accepted", True)
