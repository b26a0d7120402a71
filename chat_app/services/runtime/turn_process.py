"""Turns run in a process of their own beside the web worker (the *turn process*).

One worker process runs Python one thread at a time. Under many chats its one core did
everything: Reflex's events and the state changes sent to every tab, and the agent's turns
(the graph, the model's stream, the store's writes), so a new message's first words waited
behind all of it while the machine's other core stayed idle. With the turn process on, the
worker keeps the pages and hands every send and every resume of queued messages to a child
process (``python -m chat_app.services.turn_worker``) over a private socket pair; the
child streams the run's UI events back and the worker relays them to the tab that asked and
to the thread's other tabs (``live.relay``) exactly as it did for a run of its own.

Nothing durable lives in the child: messages are queued in the database before a turn
takes them, turn locks are the store's (a file lock or a lease, both across processes), Stop
is counted on the thread's row (and forwarded at once). If the child dies, the runs it had
end with a message saying so, and a new child starts; a send the dead child had not
acknowledged is sent again to the new one (once: the ``client_id`` keeps it from being
stored twice), or refused in plain words when it has no ``client_id``. The worker frees the
dead child's turn leases and hands the threads of its runs to ``after_loss`` (the app
answers their cut turns once more, as after a crash of the worker). If the worker dies, the
child sees its socket close and exits at once.

A child grown while idle is replaced by a fresh one when the policy of
:mod:`chat_app.services.runtime.turn_recycling` says so: the old one is told to end (its
socket closed) once no run of it is left.

The frames (:mod:`chat_app.services.runtime.turn_frames`) are pickles (one per message,
each behind a 4-byte length): both ends are this code base and the socket pair is private
to them, never a network socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import pickle
import secrets
import socket
import struct
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from agent_core.events import AcceptedEvent
from chat_app.errors import AppError
from chat_app.services.presentation.ui_events import Refused
from chat_app.services.runtime.run_stream import RunHandle, RunStream
from chat_app.services.runtime.turn_frames import (
    ChildLost,
    CloseRun,
    Loaded,
    Reply,
    ResumeRun,
    RunEnded,
    RunEvent,
    RunFailed,
    RunOwned,
    SendRun,
    StartRun,
    StopThread,
)
from chat_app.services.runtime.turn_recycling import Recycling, resident_bytes
from chat_app.settings import TURN_HOLDER_ENV  # the child's leases carry it: freed at its death

__all__ = [
    "Channel",
    "TurnProcessError",
    "ENDED_MESSAGE",
    "WORKER_MODULE",
    "TurnProcess",
]

_log = logging.getLogger(__name__)
_HEADER = struct.Struct("!I")
WORKER_MODULE = "chat_app.services.turn_worker"

#: What the app does once a child died with runs going: (the child's holder tag, the threads
#: of its runs); frees the leases and answers the cut turns once more.
AfterLoss = Callable[[str, frozenset[str]], Awaitable[None]]
ENDED_MESSAGE = (
    "The process running this chat's turn stopped; what it had done is kept. "
    "Regenerate reply asks again; a message not answered yet is answered when "
    "the chat is next opened."
)


class TurnProcessError(AppError):
    """A run failed in the turn process; its text is the error the run raised there."""


class Channel:
    """Frames (any picklable value) over one stream, both ways. What is posted within one
    turn of the event loop leaves in one write."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self._outbox = bytearray()

    def post(self, message: Any) -> None:
        """Queue ``message``; raises (pickle's error) if it cannot be sent, sending nothing."""
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        if not self._outbox:
            asyncio.get_running_loop().call_soon(self._flush)
        self._outbox += _HEADER.pack(len(data))
        self._outbox += data

    def _flush(self) -> None:
        if self._outbox and not self.writer.is_closing():
            self.writer.write(bytes(self._outbox))
        self._outbox.clear()

    async def receive(self) -> Any:
        """The next message; ``asyncio.IncompleteReadError`` once the other end has gone."""
        size = _HEADER.unpack(await self.reader.readexactly(_HEADER.size))[0]
        return pickle.loads(await self.reader.readexactly(size))

    def close(self) -> None:
        self._flush()
        self.writer.close()


class _Client:
    """The worker's side: the child process, the runs it has, and their queues."""

    def __init__(self, after_loss: AfterLoss | None = None) -> None:
        self.after_loss = after_loss
        self.channel: Channel | None = None
        self.process: asyncio.subprocess.Process | None = None
        # run -> (its thread, its queue, the channel it was sent on)
        self.runs: dict[int, tuple[str, asyncio.Queue[Reply | ChildLost], Channel]] = {}
        self.ids = itertools.count(1)
        self.spawning: asyncio.Lock = asyncio.Lock()
        self.tasks: set[asyncio.Task] = set()  # held until done: the loop keeps weak references
        # Children replaced while a run of theirs still went on: ended once it has.
        self.retiring: list[Channel] = []
        # Each child's runs so far, and what it held once loaded (its ``Loaded`` frame).
        self.runs_on: dict[Channel, int] = {}
        self.loaded: dict[Channel, int | None] = {}
        self.measure: Callable[[int], int | None] = resident_bytes
        self.recycler: asyncio.Task | None = None

    def keep(self, task: asyncio.Task) -> None:
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def ready(self) -> Channel:
        """The channel to a running child, started first when there is none."""
        if self.channel is not None:
            return self.channel
        async with self.spawning:
            if self.channel is None:
                await self._spawn()
        assert self.channel is not None
        return self.channel

    async def _spawn(self) -> None:
        ours, theirs = socket.socketpair()
        tag = secrets.token_hex(6)
        try:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                WORKER_MODULE,
                str(theirs.fileno()),
                pass_fds=(theirs.fileno(),),
                stdin=asyncio.subprocess.DEVNULL,
                env={**os.environ, TURN_HOLDER_ENV: tag},
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        reader, writer = await asyncio.open_unix_connection(sock=ours)
        # Requests posted before the child has loaded wait in the socket's buffer.
        self.channel = Channel(reader, writer)
        self.runs_on[self.channel] = 0
        self.keep(
            asyncio.create_task(
                self._read(self.channel, self.process, tag), name="baton-turn-process"
            )
        )
        _log.info("turn process %d started", self.process.pid)

    async def _read(self, channel: Channel, process: asyncio.subprocess.Process, tag: str) -> None:
        try:
            while True:
                match await channel.receive():
                    case RunOwned() | RunEvent() | RunFailed() | RunEnded() as reply:
                        found = self.runs.get(reply.run)
                        if found is not None:
                            found[1].put_nowait(reply)
                    case Loaded():
                        self.loaded[channel] = self.measure(process.pid)
                    case other:
                        raise TypeError(f"not a reply: {type(other).__name__}")
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            pass
        except Exception:  # a frame that does not read: this child cannot be trusted on
            _log.exception("the turn process %d sent what cannot be read", process.pid)
        finally:
            if self.channel is channel:
                self.channel = None
            self.runs_on.pop(channel, None)
            self.loaded.pop(channel, None)
            # Before any wait: a run started meanwhile goes to the next child, not here.
            lost = [(t, q) for t, q, sent_on in self.runs.values() if sent_on is channel]
            for _, queue in lost:
                queue.put_nowait(ChildLost())
            with contextlib.suppress(Exception):
                channel.close()
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
            code = await process.wait()
            if lost:
                _log.warning(
                    "the turn process %d ended (exit %s) with %d runs going",
                    process.pid,
                    code,
                    len(lost),
                )
                if self.after_loss is not None:
                    threads = frozenset(thread_id for thread_id, _ in lost)
                    self.keep(
                        asyncio.create_task(
                            self._after_loss(tag, threads), name="baton-turn-process-loss"
                        )
                    )

    async def _after_loss(self, tag: str, threads: frozenset[str]) -> None:
        assert self.after_loss is not None
        try:
            await self.after_loss(tag, threads)
        except Exception:  # their chats answer them when next opened, as before
            _log.exception("answering the turns the turn process had again failed")

    async def recycle(self, policy: Recycling) -> None:
        """Replace the child by a fresh one whenever ``policy`` finds it due, its idle time
        counted from the first of these checks that found no run going."""
        idle_since: float | None = None
        while True:
            await asyncio.sleep(policy.poll_interval)
            self._end_retired()
            process, old = self.process, self.channel
            if self.runs or old is None or process is None:
                idle_since = None
                continue
            now = time.monotonic()
            idle_since = now if idle_since is None else idle_since
            grown = policy.due(
                pid=process.pid,
                runs=self.runs_on.get(old, 0),
                idle_for=now - idle_since,
                loaded=self.loaded.get(old),
            )
            if grown is None:
                continue
            async with self.spawning:
                if self.channel is not old or self.runs:
                    continue
                await self._spawn()
            _log.info(
                "turn process %d replaced while idle after %d runs: it held %d MB more than "
                "once loaded",
                process.pid,
                self.runs_on.get(old, 0),
                grown // 2**20,
            )
            self.retiring.append(old)
            self._end_retired()
            idle_since = None

    def _end_retired(self) -> None:
        """Close the replaced children's sockets once no run of theirs is left (each then
        exits)."""
        for channel in list(self.retiring):
            if not any(sent_on is channel for _, _, sent_on in self.runs.values()):
                self.retiring.remove(channel)
                self.runs_on.pop(channel, None)
                self.loaded.pop(channel, None)
                with contextlib.suppress(Exception):
                    channel.close()

    def stop(self) -> None:
        if self.recycler is not None:
            self.recycler.cancel()
            self.recycler = None
        for channel in self.retiring:
            with contextlib.suppress(Exception):
                channel.close()
        self.retiring.clear()
        if self.channel is not None:
            self.channel.close()
            self.channel = None
        if self.process is not None and self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()


class TurnProcess:
    """This process's turn process, once started: the app's :class:`TurnExecutor` for a
    chat's runs (one per app: :class:`~chat_app.services.runtime.container.App`)."""

    def __init__(self) -> None:
        self._client: _Client | None = None

    def start(
        self, after_loss: AfterLoss | None = None, recycling: Recycling | None = None
    ) -> None:
        """Hand this process's turns to a turn process from now on (the app's start-up calls
        it; tests and the command line never do, and run turns in their own process). The
        child is started at once, so its imports are done before the first message.
        ``after_loss`` is called when a child dies with runs going (see the module);
        ``recycling`` replaces a child grown while idle (none: never; see
        :mod:`~chat_app.services.runtime.turn_recycling`)."""
        if self._client is None:
            self._client = _Client(after_loss)
        client = self._client

        async def spawn() -> None:
            try:
                await client.ready()
            except Exception:  # the first run tries again, and says why if it fails too
                _log.warning("could not start the turn process", exc_info=True)

        loop = asyncio.get_running_loop()
        client.keep(loop.create_task(spawn(), name="baton-turn-process-start"))
        if recycling is not None and recycling.enabled and client.recycler is None:
            client.measure = recycling.measure
            client.recycler = loop.create_task(client.recycle(recycling), name="baton-turn-recycle")

    def stop(self) -> None:
        """Stop handing turns over and end the child (the app's shutdown)."""
        if self._client is not None:
            self._client.stop()
            self._client = None

    def serves(self) -> bool:
        """Whether this process hands its turns to a turn process."""
        return self._client is not None

    @property
    def child(self) -> asyncio.subprocess.Process | None:
        """The child process now, if one runs."""
        return self._client.process if self._client is not None else None

    def is_busy(self, thread_id: str) -> bool:
        """Whether the turn process runs something of ``thread_id`` for this worker now."""
        client = self._client
        return client is not None and any(t == thread_id for t, _, _ in client.runs.values())

    def active_runs(self) -> int:
        """How many runs this worker has going in the turn process."""
        return len(self._client.runs) if self._client is not None else 0

    def request_stop(self, thread_id: str) -> bool:
        """Forward a Stop to the turn process when it runs something of ``thread_id``."""
        client = self._client
        if client is None or client.channel is None or not self.is_busy(thread_id):
            return False
        client.channel.post(StopThread(thread_id))
        return True

    def send(
        self,
        owner: str,
        thread_id: str,
        text: str,
        client_id: str | None,
        *,
        handle: RunHandle,
        after_unstored: bool = False,
    ) -> RunStream:
        return self.stream(
            thread_id,
            lambda run: SendRun(run, owner, thread_id, text, client_id, after_unstored),
            handle=handle,
            client_id=client_id,
        )

    def resume(self, owner: str, thread_id: str, *, cut: bool, handle: RunHandle) -> RunStream:
        return self.stream(
            thread_id, lambda run: ResumeRun(run, owner, thread_id, cut), handle=handle
        )

    async def stream(
        self,
        thread_id: str,
        start: Callable[[int], StartRun],
        *,
        handle: RunHandle,
        client_id: str | None = None,
    ) -> RunStream:
        """The events of the run ``start(run)`` asks for on ``thread_id``, run in the turn
        process (``run`` is the number its frames come back under); the run's ``RunOwned``
        frame sets ``handle.owned``. Closing it early closes the run there, as closing the
        run's own stream would have; if the child dies meanwhile, an error event says so
        and it ends. ``client_id``: the sender's message, for a send."""
        client = self._client
        if client is None:
            raise RuntimeError("the turn process is not started in this process")
        # A send the dead child had not acknowledged goes to the next child, once: its
        # client_id keeps the store from keeping it twice, whether or not the first got it.
        resends = 1 if client_id else 0
        accepted = False
        while True:
            channel = await client.ready()
            run = next(client.ids)
            queue: asyncio.Queue[Reply | ChildLost] = asyncio.Queue()
            client.runs[run] = (thread_id, queue, channel)
            client.runs_on[channel] = client.runs_on.get(channel, 0) + 1
            ended = False
            try:
                channel.post(start(run))
                while True:
                    reply = await queue.get()
                    if isinstance(reply, RunOwned):
                        handle.owned = True
                        continue
                    if isinstance(reply, RunEvent):
                        accepted = accepted or isinstance(reply.event, AcceptedEvent)
                        yield reply.event
                        continue
                    ended = True
                    match reply:
                        case RunFailed(error=error):
                            raise TurnProcessError(error)
                        case ChildLost() if resends and not accepted:
                            resends -= 1
                            _log.warning("a send the turn process lost goes to the next one")
                        case ChildLost():
                            # Not acknowledged: the sender's outbox forgets it, the text stays.
                            unacknowledged = None if accepted else client_id
                            yield (
                                Refused(message=ENDED_MESSAGE, client_id=unacknowledged)
                                if unacknowledged
                                else Refused(message=ENDED_MESSAGE)
                            )
                            return
                        case _:
                            return
                    break
            finally:
                client.runs.pop(run, None)
                if not ended and client.channel is channel:
                    with contextlib.suppress(Exception):
                        channel.post(CloseRun(run))
