"""Load with faults: N chats on PostgreSQL + Redis while Redis is cut or the turn processes die.

Two phases, each on its own server (PostgreSQL, Redis behind a TCP proxy this bench controls,
several workers, turns in a process of their own):

- ``redis``: the proxy between the app and Redis is cut for ``--outage`` seconds (10 by
  default) while the chats send; the shared Redis itself never stops;
- ``kill``: every turn process of the server is killed (SIGKILL) while the chats send.

Each chat is a tab (``bench.load``'s websocket client) that starts a chat and then sends
``--messages`` messages as the page's outbox does: each with a ``client_id``, sent again
under the same id every 8 s until the server acknowledges it (a refusal in plain words is
counted, and the message is sent again too). The first ``--watchers`` chats have a second
tab on the same chat, which must see the first tab's messages. Measured per phase:

- lost: sent, never stored; duplicated: stored more than once; unanswered: stored but
  without an assistant reply 30 s after the last send (all three must be 0);
- no-ack: messages that got neither an acknowledgement nor a plain refusal for 30 s;
- recovery: seconds from the fault's end until every watcher tab has seen a message its
  chat's other tab sent after the fault.

Run: ``.venv/bin/python -m bench.load_faults [--faults redis,kill] [--clients 100]
[--messages 3] [--outage 10] [--watchers 10] [--workers 2] [--timeout 300]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bench.load import (
    _TOAST,
    TEXT,
    EventNames,
    ReflexSocket,
    _event,
    _fetch_cookie,
    _group_pids,
    await_turn_end,
    bench_redis,
    open_new_chat,
    postgres_database,
    rows_of_threads,
    thread_rows,
)

__all__ = ["FAULTS", "FaultResult", "run_fault_phases", "print_fault_report", "main"]

FAULTS = ("redis", "kill")
RESEND_SECONDS = 8.0  # the outbox's (assets/baton-outbox.js RETRY_AFTER_MS)
ANSWER_SECONDS = 30.0  # a send gets an acknowledgement or a refusal within this
GIVE_UP_SECONDS = 120.0  # a message is sent again this long at most
WATCH_SECONDS = 60.0  # a watcher tab may take this long after its chat's last send
TURN_WORKER = b"chat_app.services.turn_worker"
PAUSED_MARK, BACK_MARK = "Live updates are paused", "Live updates are back"


@dataclass
class Chat:
    """One client's chat: its texts (each with its client_id) and what happened to them."""

    number: int
    # The outbox's tab id: a tab numbers its sends <tab>.<n>.<nonce> (send_order).
    tab: str = field(default_factory=lambda: f"bench{uuid.uuid4().hex[:8]}")
    thread_id: str = ""
    sent: dict[str, str] = field(default_factory=dict)  # client_id -> text
    acknowledged: set[str] = field(default_factory=set)
    refusals: int = 0
    silent: int = 0  # messages without acknowledgement or refusal for 30 s
    errors: Counter = field(default_factory=Counter)
    after_fault: set[str] = field(default_factory=set)  # texts sent once the fault was over
    after_sent_at: float | None = None  # when the first of them was sent
    seen_by_watcher_at: float | None = None
    # What the watcher tab was told, first time each (monotonic): "paused", "back", "seen".
    watcher_heard: dict[str, float] = field(default_factory=dict)


@dataclass
class FaultResult:
    fault: str
    clients: int
    chats: list[Chat]
    stored: int = 0
    duplicated: int = 0
    answered: int = 0
    unanswered: list[str] = field(default_factory=list)
    fault_started: float = 0.0
    fault_ended: float = 0.0
    watchers: int = 0

    @property
    def sent(self) -> int:
        return sum(len(c.sent) for c in self.chats)

    @property
    def recovery(self) -> float | None:
        """Seconds from the fault's end until every watcher saw the other tab again."""
        seen = [c.seen_by_watcher_at for c in self.chats[: self.watchers]]
        if not seen or any(s is None for s in seen):
            return None
        return max(0.0, max(s for s in seen if s is not None) - self.fault_ended)


async def _send_until_acknowledged(
    socket: ReflexSocket, names: EventNames, path: str, chat: Chat, text: str, number: int
) -> None:
    """Send ``text``, the tab's ``number``-th, as the outbox does, under one client_id,
    until it is acknowledged."""
    client_id = f"{chat.tab}.{number}.{uuid.uuid4().hex[:8]}"
    chat.sent[client_id] = text
    started, responded = time.monotonic(), False
    while time.monotonic() - started < GIVE_UP_SECONDS:
        await socket.emit(
            _event(names.submit, path, form={"message": text, "client_id": client_id})
        )
        deadline, sending = time.monotonic() + RESEND_SECONDS, ""
        with contextlib.suppress(TimeoutError):
            while True:
                update = await socket.next_update(deadline)
                if '"sending_rx_state_":true' in update:
                    sending = update  # the run started before its acknowledgement came
                if client_id in update and "batonOutbox.accepted" in update:
                    chat.acknowledged.add(client_id)
                    if '"sending_rx_state_":false' not in update.split(client_id, 1)[-1]:
                        with contextlib.suppress(TimeoutError):
                            await await_turn_end(socket, time.monotonic() + 60, sending or update)
                    return
                refused = "batonOutbox.refused" in update and client_id in update
                if refused or any(kind == "error" for kind, _ in _TOAST.findall(update)):
                    chat.refusals += 1
                    responded = True
                    break
        if not responded and time.monotonic() - started >= ANSWER_SECONDS:
            chat.silent += 1  # neither acknowledged nor refused for 30 s
            responded = True  # counted once
        await asyncio.sleep(max(0.0, deadline - time.monotonic()))  # the outbox's pace


async def _watch(socket: ReflexSocket, chat: Chat, after: asyncio.Event, deadline: float) -> None:
    """The chat's second tab: note when it first sees a text its other tab sent after the
    fault."""
    try:
        while chat.seen_by_watcher_at is None:
            update = await socket.next_update(deadline)
            now = time.monotonic()
            for said, mark in (("paused", PAUSED_MARK), ("back", BACK_MARK)):
                if mark in update:
                    chat.watcher_heard.setdefault(said, now)
            if after.is_set() and any(text in update for text in chat.after_fault):
                chat.seen_by_watcher_at = now
                chat.watcher_heard.setdefault("seen", now)
    except TimeoutError:
        pass
    except Exception as error:  # the watcher's socket was closed: it never sees again
        chat.errors[f"watcher {type(error).__name__}"] += 1


async def _client(
    base_url: str,
    names: EventNames,
    chat: Chat,
    messages: int,
    watcher: bool,
    ready: asyncio.Event,
    fault_started: asyncio.Event,
    fault_ended: asyncio.Event,
    deadline: float,
) -> None:
    sockets: list[ReflexSocket] = []
    try:
        cookie = await asyncio.to_thread(_fetch_cookie, base_url)
        main = await ReflexSocket.open(base_url, cookie, _event(names.hydrate, "/"))
        sockets.append(main)
        opener = f"fault chat {chat.number} opens {uuid.uuid4().hex[:8]}: {TEXT}"
        path, loaded = await open_new_chat(main, names, opener, deadline)
        chat.thread_id = path.rsplit("/", 1)[-1]
        await await_turn_end(main, deadline, loaded)
        watching = None
        if watcher:
            second = await ReflexSocket.open(base_url, cookie, _event(names.hydrate, path))
            sockets.append(second)
            await second.emit(_event(names.on_load, path))
            # Ready once the second tab shows the chat: it follows the chat from then on. A
            # watcher counted ready before (under 100 chats, 5 of 10 still loading when the
            # cut came) never heard of the cut, and was reported as never recovering.
            loaded = f'"thread_key_rx_state_":"{chat.thread_id}"'
            while loaded not in await second.next_update(deadline):
                pass
            watching = asyncio.create_task(_watch(second, chat, fault_ended, deadline))
        ready.set()
        await fault_started.wait()
        for index in range(messages):
            if index == messages - 1:
                await fault_ended.wait()  # the last message goes after the fault
            text = f"fault chat {chat.number} message {index + 1} {uuid.uuid4().hex[:8]}"
            if fault_ended.is_set():
                chat.after_fault.add(text)
                if chat.after_sent_at is None:
                    chat.after_sent_at = time.monotonic()
            await _send_until_acknowledged(main, names, path, chat, text, index + 1)
        if watching is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(watching, WATCH_SECONDS)
    except Exception as error:  # one broken client is counted, the others go on
        chat.errors[type(error).__name__] += 1
        ready.set()
    finally:
        for socket in sockets:
            await socket.close()


def stored_counts(db_url: str, chats: list[Chat]) -> tuple[int, int, int, list[str]]:
    """(sent texts stored, stored more than once, answered by an assistant row after them,
    and for each stored one left unanswered what its chat holds after it: the roles of the
    rows that follow and the chat's messages still waiting to be delivered)."""
    wanted = {c.thread_id: set(c.sent.values()) for c in chats if c.thread_id}
    rows = thread_rows(db_url, list(wanted))
    copies: Counter = Counter()
    answered, waiting, thread = set(), None, None
    after: dict[tuple[str, str], list[str]] = {}
    for thread_id, role, content in rows:
        if thread_id != thread:
            thread, waiting = thread_id, None
        if waiting is not None:  # an event row says which (a turn cut, answered again, …)
            after[waiting].append(f"event {content[:36]!r}" if role == "event" else role)
        if role == "user" and content in wanted[thread_id]:
            copies[thread_id, content] += 1
            waiting = (thread_id, content)
            after[waiting] = []
        elif role == "assistant" and waiting is not None:
            answered.add(waiting)
            waiting = None
    duplicated = sum(1 for n in copies.values() if n > 1)
    left = [key for key in copies if key not in answered]
    queued = _undelivered(db_url, sorted({thread_id for thread_id, _ in left}))
    unanswered = [
        f"chat {thread_id[:8]} {text[:40]!r}: then {', '.join(after[thread_id, text]) or 'nothing'}"
        f"; waiting to be delivered: {queued.get(thread_id, 0)}"
        for thread_id, text in left
    ]
    return len(copies), duplicated, len(answered), unanswered


def _undelivered(db_url: str, thread_ids: list[str]) -> dict[str, int]:
    """How many messages of each of ``thread_ids`` wait in its queue, not yet delivered."""
    return dict(
        rows_of_threads(
            db_url,
            "SELECT thread_id, count(*) FROM pending_message WHERE thread_id IN :ids "
            "AND delivered_session_id IS NULL GROUP BY thread_id",
            thread_ids,
        )
    )


def _turn_processes(group: int) -> list[int]:
    found = []
    for pid in _group_pids(group):
        with contextlib.suppress(OSError):
            if TURN_WORKER in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
    return found


async def run_fault_phase(
    fault: str, server, proxy, db_url: str, clients: int, options
) -> FaultResult:
    """``clients`` chats against ``server``; once all have started, the fault."""
    names = EventNames.of_app()
    chats = [Chat(number=n) for n in range(clients)]
    watchers = min(options.watchers, clients)
    result = FaultResult(fault=fault, clients=clients, chats=chats, watchers=watchers)
    deadline = time.monotonic() + options.timeout
    fault_started, fault_ended = asyncio.Event(), asyncio.Event()
    readies = [asyncio.Event() for _ in range(clients)]
    tasks = [
        asyncio.create_task(
            _client(
                server.url,
                names,
                chats[n],
                options.messages,
                n < watchers,
                readies[n],
                fault_started,
                fault_ended,
                deadline,
            )
        )
        for n in range(clients)
    ]
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), options.timeout / 2)
    result.fault_started = time.monotonic()
    fault_started.set()
    if fault == "redis":
        proxy.cut()
        await asyncio.sleep(options.outage)
        proxy.restore()
    else:
        await asyncio.sleep(1.0)  # the first messages are in their turns
        for pid in _turn_processes(os.getpgid(server.process.pid)):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    result.fault_ended = time.monotonic()
    fault_ended.set()
    _, pending = await asyncio.wait(tasks, timeout=max(1.0, deadline - time.monotonic()))
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    waited = time.monotonic()
    while True:  # unanswered means: still without a reply this long after the last send
        result.stored, result.duplicated, result.answered, result.unanswered = stored_counts(
            db_url, chats
        )
        if result.answered >= result.sent or time.monotonic() - waited > ANSWER_SECONDS:
            break
        await asyncio.sleep(1)
    return result


@contextlib.contextmanager
def fault_server(workdir: Path, workers: int) -> Iterator[tuple[object, object, str]]:
    """(server, Redis proxy, database URL): PostgreSQL, Redis (db 9 unless
    ``BATON_BENCH_REDIS_URL`` says) behind a proxy, turns in
    a process of their own."""
    from tests.browser.app_server import running_app
    from tests.tcp_proxy import proxied

    with contextlib.ExitStack() as stack:
        redis_url = stack.enter_context(bench_redis())
        address, db = redis_url.removeprefix("redis://").rsplit("/", 1)
        host, port = address.split(":")
        proxy = stack.enter_context(proxied((host, int(port))))
        db_url = stack.enter_context(postgres_database())
        env = {
            "BATON_SIM_DELAY": "0.01",
            "BATON_SIM_WINDOW": "6000",
            "REFLEX_WEB_WORKDIR": str(workdir / "web"),
            "REFLEX_DB_URL": db_url,
            "REFLEX_REDIS_URL": proxy.url(path=f"/{db}"),
            "GRANIAN_WORKERS": str(workers),
            "BATON_TURN_PROCESS": "on",
        }
        rundir = workdir / f"faults-{uuid.uuid4().hex[:6]}"
        rundir.mkdir()
        server = stack.enter_context(running_app(rundir, env))
        yield server, proxy, db_url


def run_fault_phases(faults: list[str], clients: int, workdir: Path, options) -> list[FaultResult]:
    results = []
    for fault in faults:
        print(f"postgres+redis, fault {fault}: {clients} chats x {options.messages} messages…")
        try:
            with fault_server(workdir, options.workers) as (server, proxy, db_url):
                results.append(
                    asyncio.run(run_fault_phase(fault, server, proxy, db_url, clients, options))
                )
        except Exception as error:  # PostgreSQL or Redis not running: reported, not fatal
            print(f"fault {fault}: skipped ({type(error).__name__}: {str(error)[:300]})")
    return results


def print_fault_report(results: list[FaultResult], outage: float) -> None:
    print(
        f"\n{'fault':22s} {'N':>4s} {'sent':>5s} {'lost':>5s} {'dup':>4s} {'unanswered':>10s} "
        f"{'no-ack':>6s} {'refused':>7s} {'recovery s':>10s} {'errors':>6s}  goal"
    )
    for r in results:
        unanswered = r.stored - r.answered
        silent = sum(c.silent for c in r.chats)
        refused = sum(c.refusals for c in r.chats)
        errors = sum(sum(c.errors.values()) for c in r.chats)
        recovery = "never" if r.recovery is None else f"{r.recovery:.1f}"
        label = f"redis cut {outage:g} s" if r.fault == "redis" else "turn processes killed"
        met = r.sent - r.stored == 0 and r.duplicated == 0 and unanswered == 0
        print(
            f"{label:22s} {r.clients:4d} {r.sent:5d} {r.sent - r.stored:5d} {r.duplicated:4d} "
            f"{unanswered:10d} {silent:6d} {refused:7d} {recovery:>10s} {errors:6d}  "
            f"{'met' if met and r.recovery is not None else 'missed'}"
        )
    print(
        "(lost = sent, never stored; dup = stored twice; unanswered = stored, no reply 30 s after\n"
        " the last send; no-ack = messages with neither acknowledgement nor refusal for 30 s;\n"
        " refused = plain refusals, after which the message was sent again; recovery = seconds\n"
        f" from the fault's end until each of the {results[0].watchers if results else 0} "
        "watcher tabs saw its chat's other tab again)"
    )
    for r in results:
        print_watchers(r)
    for r in results:
        for line in r.unanswered:
            print(f"  {r.fault}: unanswered: {line}")
    for r in results:
        errors = Counter()
        for chat in r.chats:
            errors.update(chat.errors)
        if errors:
            print(
                f"  {r.fault}: client errors " + ", ".join(f"{k} x{n}" for k, n in errors.items())
            )


def print_watchers(result: FaultResult) -> None:
    """Each watcher tab's timeline, in seconds from the fault's end: when it said live updates
    were paused and back, when its chat's other tab sent after the fault, when it saw that."""

    def at(moment: float | None) -> str:
        return "-" if moment is None else f"{moment - result.fault_ended:+.1f}"

    print(f"  {result.fault}: watcher tabs, s from the fault's end (paused, back, sent, seen):")
    for chat in result.chats[: result.watchers]:
        heard = chat.watcher_heard
        print(
            f"    chat {chat.number:3d}: {at(heard.get('paused')):>6s} {at(heard.get('back')):>6s} "
            f"{at(chat.after_sent_at):>6s} {at(heard.get('seen')):>6s}"
        )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.load_faults", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--faults", default=",".join(FAULTS), help="of redis, kill (default both)")
    parser.add_argument("--clients", type=int, default=100, help="chats (default 100)")
    parser.add_argument("--messages", type=int, default=3, help="messages a chat (default 3)")
    parser.add_argument("--outage", type=float, default=10.0, help="seconds Redis is cut")
    parser.add_argument(
        "--watchers", type=int, default=10, help="chats with a second tab (default 10)"
    )
    parser.add_argument("--workers", type=int, default=2, help="backend workers (default 2)")
    parser.add_argument(
        "--timeout", type=float, default=300, help="seconds a phase may run (default 300)"
    )
    options = parser.parse_args(argv)
    options.faults = [f.strip() for f in options.faults.split(",") if f.strip()]
    if set(options.faults) - set(FAULTS):
        parser.error(f"--faults takes {', '.join(FAULTS)}")
    return options


def main(argv: list[str] | None = None) -> None:
    options = parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="baton-bench-faults-"))
    results = run_fault_phases(options.faults, options.clients, workdir, options)
    if results:
        print_fault_report(results, options.outage)


if __name__ == "__main__":
    main()
