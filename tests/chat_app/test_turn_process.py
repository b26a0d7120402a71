"""Turns handed to the turn process (chat_app.services.runtime.turn_process): a real child process on
a real SQLite database, with the simulator."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
import uuid
from typing import cast

import pytest

from chat_app.root import root
from chat_app.services.runtime import turn_process
from chat_app.services.runtime.turn_recycling import Recycling
from chat_app.settings import Settings
from tests.chat_app.apps import started_with
from tests.chat_app.wire import drained, relayed


@pytest.fixture
def settings(db_url) -> Settings:
    """This process's settings; its turn process reads the same from its environment."""
    return Settings(db_url=db_url, sim_delay=0, sim_window=3000)


@pytest.fixture
def database(db_url, monkeypatch, app):
    # The turn process is a process of its own: it reads its settings from the environment
    # it inherits, as at start-up.
    monkeypatch.setenv("REFLEX_DB_URL", db_url)
    monkeypatch.setenv("BATON_SIM_DELAY", "0")
    monkeypatch.setenv("BATON_SIM_WINDOW", "3000")
    monkeypatch.delenv("REFLEX_REDIS_URL", raising=False)
    return db_url


def _in_turn_process(work, after_loss=None):
    """Run ``work()`` (a coroutine function) with this process's turns handed over."""

    async def run():
        root().turn_process.start(after_loss)
        try:
            return await work()
        finally:
            root().turn_process.stop()

    return asyncio.run(run())


def _child_pid() -> int:
    child = root().turn_process.child
    assert child is not None
    return child.pid


def _shown(events: list[dict]) -> tuple[list[str], str]:
    return (
        [e["type"] for e in events if e["type"] != "token"],
        "".join(e["data"]["text"] for e in events if e["type"] == "token"),
    )


def test_a_send_runs_in_the_turn_process_and_shows_what_it_would_here(database, app) -> None:
    from chat_app.services.conversation.runs import chat
    from chat_app.services.conversation.threads import chats as threads

    owner = f"owner-{uuid.uuid4().hex[:8]}"
    here, there = (
        threads.create_thread(app, owner, "here"),
        threads.create_thread(app, owner, "there"),
    )
    text = "Build a CSV parser for invoices"

    async def drain(thread_id: str) -> tuple[list[dict], list[dict]]:
        async with app.live.watch(thread_id) as queue:
            own = await drained(chat.send_message(app, owner, thread_id, text, "tab.1.a", "run-1"))
            seen = relayed(queue.get_nowait() for _ in range(queue.qsize()))
        return own, seen

    local, _ = asyncio.run(drain(here.id))
    assert not root().runner.is_busy(here.id)

    async def handed_over():
        result = await drain(there.id)
        return result, _child_pid()

    (remote, others), child = _in_turn_process(handed_over)
    assert child != os.getpid()
    # The simulator is deterministic: the same events, in the same order, from either process.
    assert _shown(remote) == _shown(local)
    assert {"item", "utilization", "context_reset", "done"} <= set(_shown(remote)[0])
    assert _shown(remote)[1]  # and the streamed words
    # The worker relays the child's run to the thread's other tabs, as it did its own.
    assert others[0]["type"] == "run" and others[0]["data"]["running"]
    assert others[-1]["type"] == "run" and not others[-1]["data"]["running"]
    assert {e["run"] for e in others} == {"run-1"}
    # Nothing of that turn ran in this process.
    assert all(key[0] != there.id for key in root().runner._estimators)
    view = threads.load_timeline(app, owner, there.id)
    assert view is not None and view.items[1].content == text


async def _killed_at_first_words(app, owner: str, thread_id: str, before_kill=lambda: None):
    """Send "Build a CSV parser" in the turn process and kill the child at its first words;
    the run's events and the killed child's pid."""
    from chat_app.services.conversation.runs import chat

    events, killed = [], None
    async for event in chat.send_message(app, owner, thread_id, "Build a CSV parser"):
        events.append(event.model_dump())
        if event.type == "token" and killed is None:
            killed = _child_pid()
            before_kill()
            os.kill(killed, signal.SIGKILL)
    return events, killed


def test_a_dead_turn_process_ends_its_runs_with_a_message_and_the_next_send_works(
    database, monkeypatch, app
) -> None:
    from chat_app.services.conversation.runs import chat
    from chat_app.services.conversation.threads import chats as threads

    monkeypatch.setenv("BATON_SIM_DELAY", "0.05")
    monkeypatch.setenv("BATON_SIM_WINDOW", "200000")  # the turn process's
    app = started_with(app, sim_window=200000)  # and this process's
    owner = f"owner-{uuid.uuid4().hex[:8]}"
    thread = threads.create_thread(app, owner, "Long job")

    async def work():
        events, killed = await _killed_at_first_words(app, owner, thread.id)
        # The killed child's file lock went with it: the next send takes the thread (in a
        # new child, which reads the environment as it is now).
        monkeypatch.setenv("BATON_SIM_DELAY", "0")
        after = await drained(chat.send_message(app, owner, thread.id, "carry on"))
        return events, killed, after, _child_pid()

    events, killed, after, second = _in_turn_process(work)
    assert events[-1] == {"type": "error", "data": {"message": turn_process.ENDED_MESSAGE}}
    assert second != killed
    assert after[-1]["type"] == "done"
    view = threads.load_timeline(app, owner, thread.id)
    assert view is not None
    assert [i.content for i in view.items if i.role == "user"][:2] == [
        "Build a CSV parser",
        "carry on",
    ]


def test_a_turn_cut_by_a_turn_process_kill_is_answered_again_by_itself(
    database, monkeypatch, app
) -> None:
    """Cut turns waited for Regenerate (21 of 40 first messages after a kill under load),
    while a whole-server crash already answered them again at start-up."""
    from chat_app.services.conversation.runs.cut_turns import (
        RESUMED_NOTE,
        resume_after_turn_process_loss,
    )
    from chat_app.services.conversation.threads import chats as threads

    monkeypatch.setenv("BATON_SIM_DELAY", "0.05")
    monkeypatch.setenv("BATON_SIM_WINDOW", "200000")  # the turn process's
    app = started_with(app, sim_window=200000)  # and this process's
    owner = f"owner-{uuid.uuid4().hex[:8]}"
    thread = threads.create_thread(app, owner, "Long job")

    async def work():
        # The next child answers fast: it reads the environment as it is when it starts.
        events, _ = await _killed_at_first_words(
            app, owner, thread.id, lambda: monkeypatch.setenv("BATON_SIM_DELAY", "0")
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # no send, no reload: by itself
            view = threads.load_timeline(app, owner, thread.id)
            if view is not None and view.items[-1].role == "assistant" and not view.pending:
                return events, view
            await asyncio.sleep(0.5)
        return events, threads.load_timeline(app, owner, thread.id)

    events, view = _in_turn_process(
        work, lambda tag, threads_: resume_after_turn_process_loss(app, tag, threads_)
    )
    assert events[-1] == {"type": "error", "data": {"message": turn_process.ENDED_MESSAGE}}
    assert view is not None
    contents = [(item.role, item.content) for item in view.items]
    assert ("event", RESUMED_NOTE) in contents or any(
        RESUMED_NOTE in str(item.content) for item in view.items
    ), contents
    assert view.items[-1].role == "assistant"
    assert [c for r, c in contents if r == "user"] == ["Build a CSV parser"]


def test_a_send_the_killed_turn_process_never_acknowledged_is_stored_once_and_answered(
    database, app
) -> None:
    """7 of 13 messages sent just after a turn-process kill got neither an acknowledgement
    nor a refusal. Here the child dies before it reads the send at all."""
    from chat_app.services.conversation.runs import chat
    from chat_app.services.conversation.threads import chats as threads

    owner = f"owner-{uuid.uuid4().hex[:8]}"
    thread = threads.create_thread(app, owner, "Sent into a dying child")

    async def work():
        client = root().turn_process._client
        assert client is not None
        await client.ready()  # the child is still importing: it has read nothing yet
        doomed = _child_pid()
        sending = asyncio.ensure_future(
            drained(chat.send_message(app, owner, thread.id, "Keep me", "tab.1.keep"))
        )
        await asyncio.sleep(0.05)  # the send is posted to the doomed child
        os.kill(doomed, signal.SIGKILL)
        return await asyncio.wait_for(sending, 120), doomed, _child_pid()

    events, doomed, second = _in_turn_process(work)
    assert second != doomed
    kinds = [event["type"] for event in events]
    assert {
        "type": "accepted",
        "data": {
            "pending_id": events[kinds.index("accepted")]["data"]["pending_id"],
            "client_id": "tab.1.keep",
        },
    } in events
    assert kinds[-1] == "done" and "error" not in kinds
    view = threads.load_timeline(app, owner, thread.id)
    assert view is not None
    assert [i.content for i in view.items if i.role == "user"] == ["Keep me"]


def test_stop_reaches_the_turn_in_the_turn_process_and_closing_a_run_ends_it(
    database, monkeypatch, app
) -> None:
    from chat_app.services.conversation.runs import chat
    from chat_app.services.conversation.threads import chats as threads

    monkeypatch.setenv("BATON_SIM_DELAY", "0.05")
    monkeypatch.setenv("BATON_SIM_WINDOW", "200000")  # the turn process's
    app = started_with(app, sim_window=200000)  # and this process's
    owner = f"owner-{uuid.uuid4().hex[:8]}"
    stopped, closed = (
        threads.create_thread(app, owner, "stopped"),
        threads.create_thread(app, owner, "closed"),
    )

    async def stopped_at_first_words(thread_id: str, text: str) -> list[dict]:
        events, pressed = [], False
        async for event in chat.send_message(app, owner, thread_id, text):
            events.append(event.model_dump())
            if event.type == "token" and not pressed:
                pressed = chat.stop(app, thread_id)
        assert pressed
        return events

    async def work():
        events = await stopped_at_first_words(stopped.id, "Build a CSV parser")
        run = chat.send_message(app, owner, closed.id, "Build a CSV parser")
        async for event in run:
            if event.type == "token":
                break
        busy_while_open = root().turn_process.is_busy(closed.id)
        await run.aclose()
        idle_after_close = not root().turn_process.is_busy(closed.id)
        # Its turn was cancelled in the child: the thread's lock is free for the next send.
        after = await stopped_at_first_words(closed.id, "carry on")
        return events, busy_while_open, idle_after_close, after

    events, busy_while_open, idle_after_close, after = _in_turn_process(work)
    assert events[-1] == {"type": "done", "data": {"cancelled": True}}
    assert busy_while_open and idle_after_close
    assert after[-1] == {"type": "done", "data": {"cancelled": True}}


_WORKER = textwrap.dedent("""
    import asyncio, sys
    from chat_app.services.conversation.runs import chat
    from chat_app.services.conversation.threads import chats as threads
    from chat_app.root import root

    async def main():
        app = root()
        app.turn_process.start()
        thread = threads.create_thread(app, "owner-x", "Long job")
        async for event in chat.send_message(app, "owner-x", thread.id, "Build a CSV parser"):
            if event.type == "token":
                print(app.turn_process.child.pid, thread.id, flush=True)
                await asyncio.sleep(3600)

    asyncio.run(main())
""")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_killed_worker_takes_its_turn_process_with_it(database, monkeypatch, app) -> None:
    from chat_app.services.conversation.runs import chat

    env = os.environ | {"BATON_SIM_DELAY": "0.05", "BATON_SIM_WINDOW": "200000"}
    worker = subprocess.Popen(
        [sys.executable, "-c", _WORKER],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        child, thread_id = worker.stdout.readline().split()
        assert _alive(int(child))
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=10)
        deadline = time.monotonic() + 20
        while _alive(int(child)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(int(child)), "the turn process outlived its worker"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(worker.pid, signal.SIGKILL)
    # Its turn ended with it: the thread takes the next message here.
    after = asyncio.run(_drain(chat.send_message(app, "owner-x", thread_id, "carry on")))
    assert after[-1]["type"] == "done"


async def _drain(stream) -> list[dict]:
    return await drained(stream)


def test_the_turn_process_refuses_a_frame_that_is_not_a_request() -> None:
    from chat_app.services import turn_worker
    from chat_app.services.runtime.backend import Backend
    from chat_app.services.runtime.turn_frames import RunEnded

    async def exchange() -> None:
        ours, theirs = socket.socketpair()
        worker = turn_process.Channel(*await asyncio.open_unix_connection(sock=ours))
        child = turn_process.Channel(*await asyncio.open_unix_connection(sock=theirs))
        unread = cast(Backend, object())  # no run starts: the backend is never read
        serving = asyncio.create_task(turn_worker.serve(unread, child))
        worker.post(RunEnded(7))  # a reply: the worker never sends one
        with pytest.raises(TypeError, match="not a request: RunEnded"):
            await asyncio.wait_for(serving, 5)
        worker.close()
        child.close()

    asyncio.run(exchange())


async def _started_child() -> int:
    """The child's pid once the turn process has started it (start() spawns it in a task)."""
    deadline = time.monotonic() + 30
    while root().turn_process.child is None and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return _child_pid()


class _Held:
    """What the test says a child holds (the turn process reads it as the child's RSS)."""

    def __init__(self) -> None:
        self.now = 100 * 2**20

    def __call__(self, pid: int) -> int:
        return self.now


def test_a_child_grown_while_idle_is_replaced_and_the_next_send_runs_in_the_new_one(
    database, app
) -> None:
    from chat_app.services.conversation.runs import chat
    from chat_app.services.conversation.threads import chats as threads

    owner = f"owner-{uuid.uuid4().hex[:8]}"
    thread = threads.create_thread(app, owner, "recycled")
    held = _Held()
    recycling = Recycling(growth=64 * 2**20, idle=0.2, runs=1, measure=held)

    async def work():
        process = root().turn_process
        process.start(None, recycling)
        try:
            first = await _started_child()
            await drained(chat.send_message(app, owner, thread.id, "Build a CSV parser"))
            await asyncio.sleep(1)  # idle, but no bigger than once loaded: kept
            kept = _child_pid()
            held.now += 65 * 2**20
            deadline = time.monotonic() + 20
            while _child_pid() == first and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            fresh = _child_pid()
            events = await drained(chat.send_message(app, owner, thread.id, "Now the docs"))
            client = process._client
            return first, kept, fresh, client.retiring if client else None, events
        finally:
            root().turn_process.stop()

    first, kept, fresh, retiring, events = asyncio.run(work())
    assert kept == first
    assert fresh != first, "the grown child was not replaced"
    assert retiring == []  # the replaced one had no run left: its socket is closed
    assert any(e["type"] == "done" for e in events)
    view = threads.load_timeline(app, owner, thread.id)
    assert view is not None
    assert [i.content for i in view.items if i.role == "user"][-1] == "Now the docs"
    deadline = time.monotonic() + 10
    while _alive(first) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(first), "the replaced child still runs"


def test_a_grown_child_that_ran_fewer_runs_than_the_policy_is_kept(database, app) -> None:
    from chat_app.services.conversation.runs import chat
    from chat_app.services.conversation.threads import chats as threads

    owner = f"owner-{uuid.uuid4().hex[:8]}"
    thread = threads.create_thread(app, owner, "kept")
    held = _Held()
    recycling = Recycling(growth=1, idle=0.2, runs=2, measure=held)

    async def work():
        root().turn_process.start(None, recycling)
        try:
            first = await _started_child()
            await drained(chat.send_message(app, owner, thread.id, "Build a CSV parser"))
            held.now *= 2
            await asyncio.sleep(1.5)
            return first, _child_pid()
        finally:
            root().turn_process.stop()

    first, later = asyncio.run(work())
    assert first == later
