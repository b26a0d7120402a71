"""Many chats at once: browser-less websocket clients against the production server.

For each backend (SQLite; PostgreSQL; PostgreSQL with Redis holding Reflex state and several
workers) one server is started on 127.0.0.1 with the offline simulator; then, for each N, N
clients connect the way a browser tab does (``GET /`` for the identity cookie, a websocket on
``/_event`` whose CONNECT packet carries the hydrate event), start a chat with the thread
list's "new chat" event, open it and send M messages, each once the previous answer finished.
Measured side by side in one run, per (backend, N):

- first-token latency (submit to the first streamed text), p50/p95, and its two parts: submit
  to the first update that carries the message back (the send taken, the message stored or
  queued), and from there to the first words (the turn's start);
- answers completed and messages lost, checked in the database after a grace period: a sent
  message is lost when no user row holds its text, answered when an assistant row follows it;
- ``GET /ping`` p95, from a separate process pinging every 100 ms while the chats run;
- RSS of the server's process group before the clients connect, at peak, and 10 s after they
  left; CPU used by the server's processes and by this client, to say what limited it.

Goal on a 2-core machine with the simulator, at N = 100: every message stored and answered,
first-token p95 <= 2 s, ``/ping`` p95 <= 250 ms, memory back within 10% after the clients
leave. The verdict is printed beside the figures; nothing here asserts on time.

Run: ``.venv/bin/python -m bench.load [--clients 10,50,100,200] [--messages 2]
[--backends sqlite,postgres,postgres+redis] [--turns process,worker] [--timeout 300]``;
``--turns process,worker`` runs each backend with its turns in a process of their own and in
the worker, and prints their ratios side by side. PostgreSQL (trust auth on
127.0.0.1:5432, a scratch database per run) and Redis (127.0.0.1:6379, db 9 or
``BATON_BENCH_REDIS_URL``) are skipped,
saying why, when they do not answer. The same load with faults (a Redis outage, a
turn-process kill) is :mod:`bench.load_faults`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import re
import statistics
import tempfile
import time
import urllib.request
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import websockets

from bench._shared import REPO_ROOT, p95  # noqa: F401  (REPO_ROOT puts the repo on sys.path)

PG_ADMIN_URL = os.environ.get("BATON_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("BATON_BENCH_REDIS_URL", "redis://127.0.0.1:6379/9")
BACKENDS = ("sqlite", "postgres", "postgres+redis")
NAMESPACE = "/_event"
PING_INTERVAL = 0.1
AFTER_SECONDS = 10.0  # memory "after" is read this long after the last client left
GOAL_N, GOAL_FIRST_TOKEN, GOAL_PING, GOAL_MEMORY = 100, 2.0, 0.25, 1.10
TEXT = "build a CSV parser for the invoices folder"
_TOAST = re.compile(r"__toast'\]\?\.\[\\?\"(\w+)\\?\"\]\((.{0,100})")
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


# ----- the server's process group ---------------------------------------------------------


def _group_pids(group: int) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z" and int(fields[2]) == group:  # state, ppid, pgrp
                pids.append(int(entry.name))
    return pids


def group_rss_mb(group: int) -> float:
    """Resident memory of every live process in the group, in MB."""
    total_kb = 0
    for pid in _group_pids(group):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total_kb += int(line.split()[1])
    return total_kb / 1024


def group_cpu_seconds(group: int) -> dict[tuple[int, int], float]:
    """CPU seconds (user + system) used so far by each thread, keyed (pid, tid), of the group."""
    used = {}
    for pid in _group_pids(group):
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{pid}/task").iterdir():
                fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
                used[pid, int(task.name)] = (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS
    return used


def machine_cpu_seconds() -> float:
    """CPU seconds every process on the machine has used (busy time of all cores)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields[:8]) - idle) / _CLOCK_TICKS


@dataclass(frozen=True)
class CpuUse:
    """Cores kept busy over a phase: the server's, its busiest process and thread, the rest."""

    server: float
    busiest_process: float
    busiest_thread: float
    client: float
    machine: float

    @classmethod
    def between(cls, before: tuple, after: tuple, seconds: float) -> CpuUse:
        (threads0, client0, machine0), (threads1, client1, machine1) = before, after
        per_thread = {key: used - threads0.get(key, 0.0) for key, used in threads1.items()}
        per_process = Counter()
        for (pid, _), used in per_thread.items():
            per_process[pid] += used
        return cls(
            server=sum(per_thread.values()) / seconds,
            busiest_process=max(per_process.values(), default=0.0) / seconds,
            busiest_thread=max(per_thread.values(), default=0.0) / seconds,
            client=(client1 - client0) / seconds,
            machine=(machine1 - machine0) / seconds,
        )


def cpu_snapshot(group: int) -> tuple:
    return group_cpu_seconds(group), time.process_time(), machine_cpu_seconds()


# ----- /ping, from its own process so the clients' event loop does not colour it ------------


def _ping_loop(url: str, stop, max_seconds: float, results) -> None:
    latencies, errors = [], Counter()
    deadline = time.monotonic() + max_seconds
    while not stop.is_set() and time.monotonic() < deadline:
        start = time.perf_counter()
        try:
            with urllib.request.urlopen(url + "/ping", timeout=5) as response:
                response.read()
            latencies.append(time.perf_counter() - start)
        except OSError as error:
            errors[f"/ping {type(error).__name__}"] += 1
        stop.wait(max(0.0, PING_INTERVAL - (time.perf_counter() - start)))
    results.send((latencies, dict(errors)))


@contextlib.contextmanager
def pinging(url: str, max_seconds: float) -> Iterator[dict]:
    """Ping ``url`` every 100 ms until the block ends; the dict gets latencies and errors."""
    spawn = multiprocessing.get_context("spawn")
    stop, (receiver, sender) = spawn.Event(), spawn.Pipe(duplex=False)
    process = spawn.Process(target=_ping_loop, args=(url, stop, max_seconds, sender), daemon=True)
    process.start()
    found: dict = {"latencies": [], "errors": {}}
    try:
        yield found
    finally:
        stop.set()
        if receiver.poll(15):
            found["latencies"], found["errors"] = receiver.recv()
        process.join(5)
        if process.is_alive():
            process.kill()


# ----- a browser-less Reflex client --------------------------------------------------------


class SocketClosed(Exception):
    """The server closed the websocket, or refused its namespace."""


class ReflexSocket:
    """Engine.IO v4 / Socket.IO v5 text frames on one websocket, as ``state.js`` speaks them."""

    def __init__(self, ws) -> None:
        self.ws = ws

    @classmethod
    async def open(cls, base_url: str, cookie: str, boot_event: dict) -> ReflexSocket:
        query = f"EIO=4&transport=websocket&token={uuid.uuid4()}"
        ws = await websockets.connect(
            f"ws{base_url.removeprefix('http')}{NAMESPACE}/?{query}",
            additional_headers={"Cookie": cookie, "Origin": base_url},
            max_size=None,
            ping_interval=None,
            open_timeout=30,
        )
        socket = cls(ws)
        if not (await ws.recv()).startswith("0"):  # Engine.IO open: {sid, pingInterval, ...}
            raise SocketClosed("no Engine.IO handshake")
        # The hydrate event rides in the namespace CONNECT packet, as the frontend sends it.
        await ws.send(f"40{NAMESPACE}," + json.dumps({"event": boot_event}))
        return socket

    async def emit(self, event: dict) -> None:
        await self.ws.send(f"42{NAMESPACE}," + json.dumps(["event", event]))

    async def next_update(self, deadline: float) -> str:
        """The raw JSON of the next ``event`` packet (a state update); answers pings."""
        while True:
            frame = await asyncio.wait_for(self.ws.recv(), max(0.0, deadline - time.monotonic()))
            if frame == "2":
                await self.ws.send("3")
            elif frame.startswith(f"42{NAMESPACE},"):
                return frame
            elif frame.startswith((f"41{NAMESPACE}", f"44{NAMESPACE}", "1")):
                raise SocketClosed(frame[:200])

    async def close(self, handshake_seconds: float | None = None) -> None:
        """Leave the namespace and close the websocket. The server's closing frame arrives
        behind every update not read yet, and the close waits for it up to
        ``handshake_seconds`` (the connection's 10 s when None): a client that never reads
        its updates passes a short wait, or each close costs the whole 10 s."""
        with contextlib.suppress(Exception):
            if handshake_seconds is not None:
                self.ws.close_timeout = handshake_seconds
            await self.ws.send(f"41{NAMESPACE},")
            await self.ws.close()


@dataclass(frozen=True)
class EventNames:
    hydrate: str
    on_load: str
    start: str  # the draft page's first message: stores the chat with it, then opens it
    submit: str

    @classmethod
    def of_app(cls) -> EventNames:
        from reflex.state import OnLoadInternalState, State

        from chat_app.states.chat import ChatState
        from chat_app.states.new_chat import NewChatState

        return cls(
            f"{State.get_full_name()}.hydrate_and_load",
            f"{OnLoadInternalState.get_full_name()}.on_load_internal",
            f"{NewChatState.get_full_name()}.start",
            f"{ChatState.get_full_name()}.submit",
        )


async def open_new_chat(
    socket: ReflexSocket, names: EventNames, first: str, deadline: float
) -> tuple[str, str]:
    """Start a chat from the draft page with its ``first`` message, as the browser does (the
    chat is stored with the message queued, then opened, and its page answers it); returns
    the chat's path and the update that showed it loaded."""
    await socket.emit(
        _event(names.start, "/", form={"message": first, "client_id": f"d.1.{uuid.uuid4()}"})
    )
    redirect = await _await_update(socket, deadline, lambda u: '"_redirect"' in u)
    events = json.loads(redirect.split(",", 1)[1])[1]["events"]
    path = next(e["payload"]["path"] for e in events if "path" in e.get("payload", {}))
    await socket.emit(_event(names.on_load, path))
    loaded = f'"thread_key_rx_state_":"{path.rsplit("/", 1)[-1]}"'
    return path, await _await_update(socket, deadline, lambda u: loaded in u)


async def await_turn_end(socket: ReflexSocket, deadline: float, seen: str = "") -> None:
    """Read updates until a run that started (in ``seen`` or later) has ended."""
    sending = '"sending_rx_state_":true' in seen
    while True:
        update = await socket.next_update(deadline)
        sending = sending or '"sending_rx_state_":true' in update
        if sending and '"sending_rx_state_":false' in update:
            return


def _event(name: str, path: str, **payload) -> dict:
    return {"name": name, "payload": payload, "router_data": {"pathname": path, "asPath": path}}


def _streams_text(update: str) -> bool:
    key = '"streaming_rx_state_":"'
    at = update.find(key)
    return at >= 0 and update[at + len(key)] != '"'


@dataclass
class ChatOutcome:
    """What one client saw; filled in as it goes, so a timed-out client still reports."""

    thread_id: str = ""
    sent: list[str] = field(default_factory=list)
    first_token: list[float] = field(default_factory=list)
    #: Submit to the first update that carries the message back (stored or queued): the
    #: part of the first-token wait spent before the turn could start.
    shown: list[float] = field(default_factory=list)
    #: From that update to the first streamed words: the turn's start and first words.
    after_shown: list[float] = field(default_factory=list)
    completed: int = 0
    errors: Counter = field(default_factory=Counter)
    error_samples: list[str] = field(default_factory=list)

    def note_toasts(self, update: str) -> bool:
        """Count the toasts an update shows; True when one of them is an error."""
        failed = False
        for kind, text in _TOAST.findall(update):
            if kind == "error":
                failed = True
                self.errors["toast error"] += 1
                if len(self.error_samples) < 3:  # the toast's text, JSON-escaped JS
                    self.error_samples.append(text.removeprefix('\\"').split('\\")')[0])
        return failed


def _fetch_cookie(base_url: str) -> str:
    with urllib.request.urlopen(base_url + "/", timeout=30) as response:
        response.read()
        cookies = response.headers.get_all("set-cookie") or []
    return next(c.split(";")[0] for c in cookies if c.startswith("baton_id="))


async def _await_update(socket: ReflexSocket, deadline: float, wanted) -> str:
    while True:
        update = await socket.next_update(deadline)
        if wanted(update):
            return update


async def run_chat(
    base_url: str,
    names: EventNames,
    number: int,
    messages: int,
    deadline: float,
    outcome: ChatOutcome,
) -> None:
    """One tab: open the thread list, start a chat, send ``messages`` messages in turn."""
    try:
        cookie = await asyncio.to_thread(_fetch_cookie, base_url)
    except (OSError, StopIteration) as error:
        outcome.errors[f"http GET / {type(error).__name__}"] += 1
        return
    socket = None
    try:
        socket = await ReflexSocket.open(base_url, cookie, _event(names.hydrate, "/"))
        # The chat is stored with its first message, which its page then answers: that
        # turn is waited for and counted (stored, answered), not timed.
        opener = f"chat {number} opens {uuid.uuid4().hex[:8]}: {TEXT}"
        outcome.sent.append(opener)
        path, loaded = await open_new_chat(socket, names, opener, deadline)
        outcome.thread_id = path.rsplit("/", 1)[-1]
        await await_turn_end(socket, deadline, loaded)
        outcome.completed += 1
        for index in range(messages):
            text = f"chat {number} message {index + 1} {uuid.uuid4().hex[:8]}: {TEXT}"
            outcome.sent.append(text)
            started, first, shown = time.perf_counter(), None, None
            mark = text.split(":", 1)[0]  # unique to this message, as the page shows it
            await socket.emit(_event(names.submit, path, form={"message": text}))
            sending = False
            while True:
                update = await socket.next_update(deadline)
                if shown is None and mark in update:
                    shown = time.perf_counter() - started
                    outcome.shown.append(shown)
                if first is None and _streams_text(update):
                    first = time.perf_counter() - started
                    outcome.first_token.append(first)
                    if shown is not None:
                        outcome.after_shown.append(first - shown)
                sending = sending or '"sending_rx_state_":true' in update
                refused = outcome.note_toasts(update) and not sending
                if refused or (sending and '"sending_rx_state_":false' in update):
                    break
            outcome.completed += not refused
    except TimeoutError:
        outcome.errors["ws timed out"] += 1
    except (SocketClosed, websockets.ConnectionClosed) as error:
        outcome.errors[f"ws closed {type(error).__name__}"] += 1
    except (OSError, websockets.InvalidHandshake) as error:
        outcome.errors[f"ws connect {type(error).__name__}"] += 1
    except Exception as error:  # one broken client is counted, the others go on
        outcome.errors[f"client {type(error).__name__}"] += 1
    finally:
        if socket is not None:
            await socket.close()


# ----- one phase: N clients against a running server ---------------------------------------


@dataclass
class PhaseResult:
    backend: str
    clients: int
    outcomes: list[ChatOutcome]
    stored: int
    answered: int
    ping: list[float]
    errors: Counter
    rss_before: float
    rss_peak: float
    rss_after: float
    cpu: CpuUse
    seconds: float
    unfinished: int

    @property
    def first_tokens(self) -> list[float]:
        return [t for o in self.outcomes for t in o.first_token]

    @property
    def shown(self) -> list[float]:
        return [t for o in self.outcomes for t in o.shown]

    @property
    def after_shown(self) -> list[float]:
        return [t for o in self.outcomes for t in o.after_shown]

    @property
    def sent(self) -> int:
        return sum(len(o.sent) for o in self.outcomes)


def rows_of_threads(db_url: str, sql: str, thread_ids: list[str]) -> list[tuple]:
    """The rows ``sql`` selects for ``thread_ids`` (bound as ``:ids``)."""
    from sqlalchemy import bindparam, create_engine, text

    from chat_app.db.settings import normalize_url

    if not thread_ids:
        return []
    query = text(sql).bindparams(bindparam("ids", expanding=True))
    engine = create_engine(normalize_url(db_url))
    try:
        with engine.connect() as connection:
            return [tuple(row) for row in connection.execute(query, {"ids": thread_ids})]
    finally:
        engine.dispose()


def thread_rows(db_url: str, thread_ids: list[str]) -> list[tuple[str, str, str]]:
    """(thread id, role, content) of every stored row of ``thread_ids``, in order."""
    return rows_of_threads(
        db_url,
        "SELECT thread_id, role, content FROM message WHERE thread_id IN :ids "
        "ORDER BY thread_id, seq",
        thread_ids,
    )


def stored_replies(db_url: str, outcomes: list[ChatOutcome]) -> tuple[int, int]:
    """(sent messages stored as user rows, of those the ones an assistant row follows)."""
    threads = {o.thread_id: set(o.sent) for o in outcomes if o.thread_id and o.sent}
    if not threads:
        return 0, 0
    rows = thread_rows(db_url, list(threads))
    stored = answered = 0
    thread, waiting = None, None  # the last sent text seen, until an assistant row answers it
    for thread_id, role, content in rows:
        if thread_id != thread:
            thread, waiting = thread_id, None
        if role == "user":
            waiting = content if content in threads[thread_id] else None
            stored += waiting is not None
        elif role == "assistant" and waiting is not None:
            answered += 1
            waiting = None
    return stored, answered


async def _peak_rss(group: int, stop: asyncio.Event) -> float:
    peak = 0.0
    while not stop.is_set():
        peak = max(peak, group_rss_mb(group))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.5)
    return peak


async def run_phase(
    backend: str, server, db_url: str, names: EventNames, clients: int, options: argparse.Namespace
) -> PhaseResult:
    """N clients at once (their starts spread over ``--ramp`` seconds) against ``server``."""
    group = os.getpgid(server.process.pid)
    rss_before = group_rss_mb(group)
    cpu_before = cpu_snapshot(group)
    outcomes = [ChatOutcome() for _ in range(clients)]
    deadline = time.monotonic() + options.timeout
    start = time.monotonic()

    async def tab(number: int) -> None:
        await asyncio.sleep(random.uniform(0, options.ramp))
        await run_chat(server.url, names, number, options.messages, deadline, outcomes[number])

    with pinging(server.url, options.timeout + 30) as ping:
        stop = asyncio.Event()
        peak = asyncio.create_task(_peak_rss(group, stop))
        tasks = [asyncio.create_task(tab(n)) for n in range(clients)]
        _, pending = await asyncio.wait(tasks, timeout=options.timeout + 5)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        seconds = time.monotonic() - start
        stop.set()
        rss_peak = await peak
    cpu = CpuUse.between(cpu_before, cpu_snapshot(group), seconds)
    left = time.monotonic()
    stored = answered = 0
    sent = sum(len(o.sent) for o in outcomes)
    while time.monotonic() - left < options.grace:  # the store may still be writing
        stored, answered = stored_replies(db_url, outcomes)
        if answered == sent:
            break
        await asyncio.sleep(1)
    await asyncio.sleep(max(0.0, AFTER_SECONDS - (time.monotonic() - left)))
    errors = Counter(ping["errors"])
    for outcome in outcomes:
        errors.update(outcome.errors)
    return PhaseResult(
        backend=backend,
        clients=clients,
        outcomes=outcomes,
        stored=stored,
        answered=answered,
        ping=ping["latencies"],
        errors=errors,
        rss_before=rss_before,
        rss_peak=max(rss_peak, rss_before),
        rss_after=group_rss_mb(group),
        cpu=cpu,
        seconds=seconds,
        unfinished=len(pending),
    )


# ----- backends ----------------------------------------------------------------------------


@contextlib.contextmanager
def postgres_database() -> Iterator[str]:
    """A scratch database on the local server, dropped afterwards."""
    import psycopg

    name = f"baton_load_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True, connect_timeout=3) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{PG_ADMIN_URL.rsplit('/', 1)[0]}/{name}"
    finally:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def bench_redis() -> Iterator[str]:
    """Redis db 9 (``BATON_BENCH_REDIS_URL`` names another), checked to answer. Nothing is
    flushed: the Redis may be shared, the tabs' keys are the run's own (fresh tokens) and
    expire by themselves."""
    import redis

    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
    try:
        client.ping()
    finally:
        client.close()
    yield REDIS_URL


@contextlib.contextmanager
def serving(backend: str, workdir: Path, turns: str = "default") -> Iterator[tuple[object, str]]:
    """(server, database URL) for ``backend``; the web build is shared by every backend.
    ``turns``: ``process`` or ``worker`` sets where turns run (``BATON_TURN_PROCESS``),
    ``default`` leaves it to the app."""
    from tests.browser.app_server import running_app

    env = {
        "BATON_SIM_DELAY": "0.01",
        "BATON_SIM_WINDOW": "6000",
        "REFLEX_WEB_WORKDIR": str(workdir / "web"),
    }
    if turns != "default":
        env["BATON_TURN_PROCESS"] = "on" if turns == "process" else "off"
    with contextlib.ExitStack() as stack:
        rundir = Path(tempfile.mkdtemp(prefix=f"{backend.replace('+', '-')}-", dir=workdir))
        if backend.startswith("postgres"):
            env["REFLEX_DB_URL"] = stack.enter_context(postgres_database())
        if backend.endswith("+redis"):
            env["REFLEX_REDIS_URL"] = stack.enter_context(bench_redis())
        server = stack.enter_context(running_app(rundir, env))
        yield server, env.get("REFLEX_DB_URL", f"sqlite:///{server.db_path}")


# ----- report ------------------------------------------------------------------------------


def goal_misses(result: PhaseResult) -> list[str]:
    """The goals (stated for N = 100) this row misses."""
    misses = []
    if result.stored < result.sent or result.answered < result.sent or result.unfinished:
        misses.append("not all stored+answered")
    if not result.first_tokens or p95(result.first_tokens) > GOAL_FIRST_TOKEN:
        misses.append(f"first-token p95 > {GOAL_FIRST_TOKEN:g} s")
    if not result.ping or p95(result.ping) > GOAL_PING:
        misses.append(f"/ping p95 > {GOAL_PING * 1000:.0f} ms")
    if result.rss_after > GOAL_MEMORY * result.rss_before:
        misses.append(f"memory after > {GOAL_MEMORY:.2f}x before")
    return misses


def limits(result: PhaseResult, cores: int) -> list[str]:
    """What the figures say limited this run."""
    cpu, said = result.cpu, []
    others = max(0.0, cpu.machine - cpu.server - cpu.client)
    if cpu.machine >= 0.85 * cores:
        said.append(
            f"the machine's {cores} cores were {cpu.machine / cores:.0%} busy: server "
            f"{cpu.server:.2f}, load client {cpu.client:.2f}, other processes {others:.2f}"
        )
    if cpu.busiest_thread >= 0.5:
        said.append(
            f"the busiest server thread (a worker's event loop) used "
            f"{cpu.busiest_thread:.2f} of the 1 core a thread can use (its process "
            f"{cpu.busiest_process:.2f}); /ping waits on that loop too"
        )
    if cpu.client >= 0.5:
        said.append(f"the load client used {cpu.client:.2f} cores: latencies include its own lag")
    if result.unfinished:
        said.append(
            f"{result.unfinished} chats had not finished at the {result.seconds:.0f} s timeout"
        )
    if result.rss_after > GOAL_MEMORY * result.rss_before:
        held = result.rss_after - result.rss_before
        why = (
            ""
            if "+redis" in result.backend
            else "; the tabs' states are dropped "
            "5 s after they leave (chat_app/states/left_tabs.py): docs/architecture.md "
            "says what stays"
        )
        said.append(
            f"memory held {held:.0f} MB more {AFTER_SECONDS:.0f} s after the chats left "
            f"({held / result.clients:.1f} MB a chat){why}"
        )
    if result.errors:
        said.append(
            "errors: " + ", ".join(f"{kind} x{n}" for kind, n in result.errors.most_common())
        )
    samples = {s for o in result.outcomes for s in o.error_samples}
    if samples:
        said.append("error toasts, e.g. " + " | ".join(sorted(samples)[:3]))
    return said or [
        f"nothing saturated (server {cpu.server:.2f} cores, busiest thread "
        f"{cpu.busiest_thread:.2f}, machine {cpu.machine:.2f} of {cores}); no errors"
    ]


def _ms(samples: list[float], pick) -> str:
    return f"{pick(samples) * 1000:7.0f}" if samples else "      -"


def print_report(results: list[PhaseResult], cores: int) -> None:
    print(
        f"\n{'backend':22s} {'N':>4s} {'1st p50':>7s} {'1st p95':>7s} {'answered':>9s} "
        f"{'lost':>4s} {'ping95':>7s} {'RSS before/peak/after MB':>25s} {'after/bef':>9s} "
        f"{'server':>6s} {'thread':>6s} {'client':>6s} {'machine':>7s} {'secs':>5s}  "
        f"goals (N={GOAL_N})"
    )
    for r in results:
        answered = f"{r.answered}/{r.sent}"
        rss = f"{r.rss_before:.0f}/{r.rss_peak:.0f}/{r.rss_after:.0f}"
        misses = goal_misses(r)
        print(
            f"{r.backend:22s} {r.clients:4d} {_ms(r.first_tokens, statistics.median)} "
            f"{_ms(r.first_tokens, p95)} {answered:>9s} {r.sent - r.stored:4d} "
            f"{_ms(r.ping, p95)} {rss:>25s} {r.rss_after / r.rss_before:9.2f} "
            f"{r.cpu.server:6.2f} {r.cpu.busiest_thread:6.2f} {r.cpu.client:6.2f} "
            f"{r.cpu.machine:7.2f} {r.seconds:5.0f}  "
            f"{'met' if not misses else '; '.join(misses)}"
        )
    print(
        "(latencies in ms; lost = sent but not stored; cpu columns: cores kept busy over the\n"
        " phase by the server's processes, its busiest thread, this client, the whole machine)"
    )
    print("\nWhere the first token's wait went (ms, p50 / p95):")
    for r in results:
        print(
            f"  {r.backend} N={r.clients}: submit to the message shown "
            f"{_ms(r.shown, statistics.median).strip()} / {_ms(r.shown, p95).strip()}; "
            f"then to the first words {_ms(r.after_shown, statistics.median).strip()} / "
            f"{_ms(r.after_shown, p95).strip()}"
        )
    print_turn_ratios(results)
    print("\nWhat limited it:")
    for r in results:
        for line in limits(r, cores):
            print(f"  {r.backend} N={r.clients}: {line}")


def print_turn_ratios(results: list[PhaseResult]) -> None:
    """Turns in a process of their own against turns in the worker, for each backend and N
    run both ways (``--turns process,worker``)."""
    by_label = {(r.backend, r.clients): r for r in results}
    lines = []
    for (label, clients), there in by_label.items():
        backend, _, turns = label.partition(" ")
        here = by_label.get((f"{backend} turns-in-worker", clients))
        if turns != "turns-in-process" or here is None:
            continue
        ratios = []
        for name, pick in (
            ("first-token p50", lambda r: statistics.median(r.first_tokens)),
            ("first-token p95", lambda r: p95(r.first_tokens)),
            ("/ping p95", lambda r: p95(r.ping)),
            ("phase seconds", lambda r: r.seconds),
            ("RSS after/before", lambda r: r.rss_after / r.rss_before),
        ):
            with contextlib.suppress(ValueError, ZeroDivisionError, statistics.StatisticsError):
                ratios.append(f"{name} {pick(there) / pick(here):.2f}x")
        lines.append(f"  {backend} N={clients}: " + ", ".join(ratios))
    if lines:
        print(
            "\nTurns in a process of their own, as a ratio of turns in the worker (side by side):"
        )
        print("\n".join(lines))


# ----- entry point -------------------------------------------------------------------------


def _counts(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part.strip()]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.load", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--clients",
        type=_counts,
        default=[10, 50, 100],
        help="concurrent chats per phase, comma-separated (default 10,50,100)",
    )
    parser.add_argument("--messages", type=int, default=2, help="messages per chat (default 2)")
    parser.add_argument(
        "--backends",
        default="sqlite,postgres",
        help=f"comma-separated, of {', '.join(BACKENDS)} (default sqlite,postgres)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=300,
        help="seconds a phase may run before its chats are cut off (default 300)",
    )
    parser.add_argument(
        "--ramp",
        type=float,
        default=2.0,
        help="seconds over which a phase's clients start (default 2)",
    )
    parser.add_argument(
        "--grace",
        type=float,
        default=10.0,
        help="seconds to wait for the store to catch up (default 10)",
    )
    parser.add_argument(
        "--turns",
        default="default",
        help="where turns run, comma-separated, of process, worker, default "
        "(the app's choice: a process with one worker); 'process,worker' "
        "runs each backend both ways and prints their ratios",
    )
    options = parser.parse_args(argv)
    options.turns = [t.strip() for t in options.turns.split(",") if t.strip()]
    if set(options.turns) - {"process", "worker", "default"}:
        parser.error("--turns takes process, worker or default")
    options.backends = [b.strip() for b in options.backends.split(",") if b.strip()]
    unknown = set(options.backends) - set(BACKENDS)
    if unknown:
        parser.error(f"unknown backend(s) {', '.join(sorted(unknown))}; choose from {BACKENDS}")
    return options


async def _run_backend(backend: str, server, db_url: str, options) -> list[PhaseResult]:
    names = EventNames.of_app()
    # One chat first: the server's lazy imports and caches are not what "memory before" means.
    await run_chat(server.url, names, -1, 1, time.monotonic() + options.timeout, ChatOutcome())
    results = []
    for clients in options.clients:
        print(f"{backend}: {clients} chats x {options.messages} messages…", flush=True)
        results.append(await run_phase(backend, server, db_url, names, clients, options))
    return results


def main(argv: list[str] | None = None) -> None:
    options = parse_args(argv)
    cores = os.cpu_count() or 1
    workdir = Path(tempfile.mkdtemp(prefix="baton-bench-load-"))
    results: list[PhaseResult] = []
    for backend in options.backends:
        for turns in options.turns:
            label = backend if turns == "default" else f"{backend} turns-in-{turns}"
            print(
                f"{label}: starting the server (the first build takes about a minute)…", flush=True
            )
            try:
                with serving(backend, workdir, turns) as (server, db_url):
                    results += asyncio.run(_run_backend(label, server, db_url, options))
            except Exception as error:  # a backend that is not running is reported, not fatal
                print(f"{label}: skipped ({type(error).__name__}: {str(error)[:300]})", flush=True)
    if results:
        print_report(results, cores)


if __name__ == "__main__":
    main()
