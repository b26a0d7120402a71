"""Scale-out: the same app on PostgreSQL with Redis holding Reflex state and several backend
workers. Skips (saying why) when PostgreSQL or Redis is not running on this machine."""

from __future__ import annotations

import functools
import os
import signal
import time
import urllib.request
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.app_server import AppServer, run_async, running_app
from tests.browser.chat_page import send, start_chat, user_messages, wait_idle
from tests.browser.conftest import SECRET_KEY, SIM_WINDOW, answered_here, serving
from tests.chat_app.identities import mint_token, owner_of

PG_ADMIN_URL = os.environ.get("BATON_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("BATON_TEST_REDIS_URL", "redis://127.0.0.1:6379/9")


def _postgres_database() -> Iterator[str]:
    psycopg = pytest.importorskip("psycopg")
    name = f"baton_scale_{uuid.uuid4().hex[:8]}"
    try:
        admin = psycopg.connect(PG_ADMIN_URL, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL is not reachable at {PG_ADMIN_URL}: {exc}")
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN_URL.rsplit("/", 1)[0]
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _redis() -> str:
    redis = pytest.importorskip("redis")
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        pytest.skip(f"Redis is not reachable at {REDIS_URL}: {exc}")
    return REDIS_URL


@pytest.fixture(scope="module")
def scaled_server(chromium_path, tmp_path_factory) -> Iterator[AppServer]:
    redis_url = _redis()
    for database_url in _postgres_database():
        # Three workers whatever the machine (the default is one per two cores).
        env = {
            "REFLEX_DB_URL": database_url,
            "REFLEX_REDIS_URL": redis_url,
            "GRANIAN_WORKERS": "3",
            "BATON_SIM_WINDOW": SIM_WINDOW,
            "BATON_SIM_DELAY": "0.01",
            "BATON_SECRET_KEY": SECRET_KEY,
        }
        with running_app(tmp_path_factory.mktemp("baton-scaled"), env) as server:
            server.db_url = database_url
            yield server


def _backend_workers(server: AppServer) -> list[int]:
    """The granian worker processes: the children of the group's busiest parent."""
    group = os.getpgid(server.process.pid)
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[2]) == group:  # state, ppid, pgrp
            parents[int(entry.name)] = int(fields[1])
    if not parents:  # the whole server is gone
        return []
    supervisor, _ = Counter(parents.values()).most_common(1)[0]
    return sorted(pid for pid, parent in parents.items() if parent == supervisor)


def test_a_killed_worker_is_replaced_while_the_others_serve(scaled_server, browser) -> None:
    workers = _backend_workers(scaled_server)
    assert len(workers) >= 3
    os.kill(workers[0], signal.SIGKILL)
    failed_pings, deadline = 0, time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(scaled_server.url + "/ping", timeout=5) as response:
                failed_pings += response.status != 200
        except OSError:
            failed_pings += 1
        now = _backend_workers(scaled_server)
        if workers[0] not in now and len(now) == len(workers):
            break
        time.sleep(0.2)
    assert workers[0] not in now and len(now) == len(workers), f"not replaced: {workers} -> {now}"
    assert failed_pings <= 1, f"{failed_pings} pings failed while a worker was replaced"
    page = browser.new_context(base_url=scaled_server.url).new_page()
    start_chat(page)
    send(page, "Still serving after a worker died?")
    wait_idle(page)
    assert page.locator("[data-role=assistant]").count() > 0
    page.context.close()


def _answered_chat(server: AppServer, browser, first: str) -> tuple:
    """A browser context of a known owner on ``server``, and the path of their chat whose
    first message ``first`` this process sent and answered (:func:`answered_here`, at once):
    the tests watch what comes after it."""
    from chat_app import root
    from chat_app.services.security import identity

    token = mint_token()
    context = browser.new_context(base_url=server.url)
    context.add_cookies([{"name": identity.COOKIE_NAME, "value": token, "url": server.url}])
    with serving(server.db_url, sim_window=int(SIM_WINDOW)):
        thread_id = answered_here(root.installed(), owner_of(token), first)
    return context, f"/t/{thread_id}"


def _open_answered(context, path: str):
    tab = context.new_page()
    tab.goto(path)
    tab.locator("[data-role=assistant]").last.wait_for()
    wait_idle(tab)
    return tab


def _ping(server: AppServer) -> bool:
    try:
        with urllib.request.urlopen(server.url + "/ping", timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


def test_a_worker_and_its_replacement_killed_in_a_row_leave_the_others_serving(
    scaled_server,
) -> None:
    """Granian alone calls a slot that dies within 5.5 s of its respawn a crash loop and
    stops every worker; here the slot waits and comes back, and the others serve meanwhile."""
    workers = _backend_workers(scaled_server)
    assert len(workers) >= 3
    os.kill(workers[0], signal.SIGKILL)
    deadline, replacement = time.monotonic() + 30, None
    while replacement is None and time.monotonic() < deadline:
        replacement = next(
            (pid for pid in _backend_workers(scaled_server) if pid not in workers), None
        )
        time.sleep(0.05)
    assert replacement is not None, "the killed worker was not replaced"
    os.kill(replacement, signal.SIGKILL)
    killed_at, failed_pings = time.monotonic(), 0
    while time.monotonic() < killed_at + 8:
        failed_pings += not _ping(scaled_server)
        time.sleep(0.2)
    assert scaled_server.process.poll() is None, f"the server stopped:\n{scaled_server.log_tail()}"
    assert failed_pings <= 1, f"{failed_pings} pings failed while a slot crash-looped"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(_backend_workers(scaled_server)) < len(workers):
        time.sleep(0.5)
    now = _backend_workers(scaled_server)
    assert len(now) == len(workers) and replacement not in now, f"{workers} -> {now}"
    assert "crash loop detected" not in scaled_server.log_tail(400)
    assert _ping(scaled_server)


def test_several_workers_serve_one_thread_from_postgres(scaled_server, browser) -> None:
    # The tests before kill workers on this server: their slots may still be coming back.
    # Counted as the server's process tree (its command line need not name reflex or granian:
    # the servers after the first run `tests.browser.serve_built`).
    deadline = time.monotonic() + 60
    while len(_backend_workers(scaled_server)) < 3 and time.monotonic() < deadline:
        time.sleep(0.5)
    workers = _backend_workers(scaled_server)
    print(f"backend workers: {workers}")
    assert len(workers) >= 3, "Redis should make Reflex start several workers"
    context = browser.new_context(base_url=scaled_server.url)
    page = context.new_page()
    path = start_chat(page, "Build a CSV parser for invoices")
    wait_idle(page)
    assert page.locator("[data-role=assistant]").count() > 0
    # Another tab has its own websocket (possibly another worker) and reads the same thread.
    other = context.new_page()
    other.goto(path)
    other.wait_for_selector("#timeline .baton-item")
    assert "Build a CSV parser for invoices" in user_messages(other)
    page.reload()
    page.wait_for_selector("#timeline .baton-item")
    assert user_messages(page) == ["Build a CSV parser for invoices"]
    context.close()


async def _tabs_send_at_once(url: str, tabs: int, per_tab: int) -> tuple[str, list[str]]:
    """``tabs`` websocket clients of one browser on one new chat, each sending ``per_tab``
    numbered messages as fast as it can, as the composer's outbox numbers them."""
    import asyncio

    from bench.load import ReflexSocket, _await_update, _event, _fetch_cookie, open_new_chat

    names = _event_names()
    cookie = await asyncio.to_thread(_fetch_cookie, url)
    deadline = time.monotonic() + 120
    first = await ReflexSocket.open(url, cookie, _event(names.hydrate, "/"))
    # The chat is stored with its first message (the draft page's way), then opened.
    opener = "open the chat"
    path, _ = await open_new_chat(first, names, opener, deadline)
    thread_id = path.rsplit("/", 1)[-1]
    # Each other tab boots as the browser does on "/" and then opens the chat (its on_load).
    sockets = [first] + [
        await ReflexSocket.open(url, cookie, _event(names.hydrate, "/")) for _ in range(tabs - 1)
    ]
    for socket in sockets[1:]:
        await socket.emit(_event(names.on_load, path))
        await _await_update(
            socket, deadline, lambda u: f'"thread_key_rx_state_":"{thread_id}"' in u
        )

    async def tab(index: int, socket: ReflexSocket) -> list[str]:
        texts = []
        for n in range(1, per_tab + 1):
            text = f"tab {index} message {n}"
            texts.append(text)
            await socket.emit(
                _event(
                    names.submit,
                    path,
                    form={"message": text, "client_id": f"tab{index}x.{n}.{uuid.uuid4()}"},
                )
            )
        return texts

    sent = await asyncio.gather(*(tab(i, s) for i, s in enumerate(sockets)))
    # Keep the sockets open until everything is stored: a closed tab is not the point here.
    stored_by = time.monotonic() + 240
    while (
        time.monotonic() < stored_by
        and len(_stored_user_texts(url, thread_id)) < tabs * per_tab + 1
    ):
        await asyncio.sleep(0.5)
    # These tabs never read their updates, so the server's closing frame waits behind them:
    # closed one after another with the default 10 s handshake, four tabs cost 40 s a run.
    await asyncio.gather(*(socket.close(handshake_seconds=1) for socket in sockets))
    return thread_id, [opener] + [text for texts in sent for text in texts]


_DB_URLS: dict[str, str] = {}


@functools.cache
def _event_names():
    """The app's event names, read in a fresh interpreter: importing the app's states into
    this test process after other tests ran trips Reflex's registration context. Read once:
    that interpreter takes seconds to import the app."""
    import json
    import subprocess
    import sys

    from bench.load import EventNames

    code = (
        "import json, dataclasses; from bench.load import EventNames; "
        "print(json.dumps(dataclasses.asdict(EventNames.of_app())))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    ).stdout
    return EventNames(**json.loads(out.strip().splitlines()[-1]))


def _stored_user_texts(url: str, thread_id: str) -> list[str]:
    import psycopg

    with psycopg.connect(_DB_URLS[url]) as db:
        # A request carried into the next session by a reset is a copy, not a second message.
        rows = db.execute(
            "SELECT content FROM message WHERE thread_id = %s AND role = 'user' "
            "AND meta::text NOT LIKE '%%carried_over_from%%' ORDER BY seq",
            (thread_id,),
        ).fetchall()
    return [row[0] for row in rows]


def _pending_texts(url: str, thread_id: str) -> list[str]:
    import psycopg

    with psycopg.connect(_DB_URLS[url]) as db:
        rows = db.execute(
            "SELECT content FROM pending_message WHERE thread_id = %s AND "
            "delivered_session_id IS NULL ORDER BY seq",
            (thread_id,),
        ).fetchall()
    return [row[0] for row in rows]


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_each_tabs_messages_are_stored_in_the_order_it_sent_them(scaled_server) -> None:
    """4 tabs × 50 messages sent at once on one chat, over several workers: every message
    stored once, each tab's in its own order, in 5 of 5 runs."""
    _DB_URLS[scaled_server.url] = scaled_server.db_url.replace("+psycopg", "")
    assert len(_backend_workers(scaled_server)) >= 2
    for run in range(5):
        thread_id, sent = run_async(_tabs_send_at_once(scaled_server.url, 4, 50))
        stored = _stored_user_texts(scaled_server.url, thread_id)
        missing = sorted(set(sent) - set(stored))
        assert sorted(stored) == sorted(sent), (
            f"run {run}: {len(stored)} of {len(sent)} stored; missing {missing[:20]}; "
            f"{_pending_texts(scaled_server.url, thread_id)} queued, undelivered"
        )
        for index in range(4):
            mine = [text for text in stored if text.startswith(f"tab {index} ")]
            numbers = [int(text.rsplit(" ", 1)[1]) for text in mine]
            assert numbers == sorted(numbers), f"run {run}, tab {index}: stored as {numbers}"


def test_tabs_on_several_workers_follow_one_turn(scaled_server, browser) -> None:
    """Tabs of one chat connected to different workers all see the turn and its answer live;
    a message sent from one of them during the turn is answered and shown in all."""
    from tests.browser.chat_page import timeline

    # A chat is stored with its first message: the tabs open it once it exists.
    context, path = _answered_chat(scaled_server, browser, "Hello")
    first = _open_answered(context, path)
    others = []
    for _ in range(3):  # several sockets, so that some land on other workers
        tab = context.new_page()
        tab.goto(path)
        tab.locator("#composer-input").wait_for()
        others.append(tab)
    send(first, "Write a config parser with tests")
    send(others[0], "Also add a --verbose flag")
    wait_idle(others[0])  # its send returns once its message is answered, by any worker
    wait_idle(first)
    first.reload()  # what the thread stored: a reload's view
    first.locator("#timeline .baton-item").first.wait_for()
    wait_idle(first)
    # A reload shows the newest window; a tab that followed live holds the whole turn, so
    # they are compared over the reloaded window's rows (session 1's divider aside).
    expected = [row for row in timeline(first) if row != ("divider", "1")]

    def seen(tab) -> list[tuple[str, str]]:
        rows = [row for row in timeline(tab) if row != ("divider", "1")]
        return rows[-len(expected) :]

    assert [text for kind, text in expected if kind == "user"][-1] == "Also add a --verbose flag"
    for tab in others:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (
            seen(tab) != expected or tab.locator("[data-queued=true]").count()
        ):
            time.sleep(0.5)
        assert seen(tab) == expected
        assert [t for k, t in timeline(tab) if k == "user"] == [
            "Hello",
            "Write a config parser with tests",
            "Also add a --verbose flag",
        ]
        wait_idle(tab)
    context.close()


def test_a_tabs_own_message_reaches_a_tab_on_another_worker_every_time(
    scaled_server, browser
) -> None:
    """Six times a new second tab (its own socket, often another worker's) opens the chat
    and the first tab sends: the second shows the message within seconds. Once it did not
    within 30 s, when the live subscription had ended with its worker's last watcher."""
    context, path = _answered_chat(scaled_server, browser, "Hello")
    first = _open_answered(context, path)
    for trial in range(6):
        second = context.new_page()
        second.goto(path)
        second.locator("#composer-input").wait_for()
        text = f"my own message {trial}"
        send(first, text)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and text not in user_messages(second):
            time.sleep(0.2)
        assert text in user_messages(second), f"trial {trial}: not shown in the second tab"
        wait_idle(first)
        second.close()  # its worker may have no watcher left: the next tab must still follow
    context.close()
