"""The turn process: runs the sends and resumes a web worker hands it, and streams their
events back (:mod:`chat_app.services.runtime.turn_process` says why and how).

Started by the worker as ``python -m chat_app.services.turn_worker FD``, where ``FD`` is its
end of a private socket pair. It serves until that socket closes (the worker ended, or was
killed), then exits at once: its turns end with it, as they would have ended with the
worker, and their locks go with the process (a lease expires).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import sys

from agent_core.redaction import install_log_redaction
from chat_app.services.conversation import runs as run_service
from chat_app.services.presentation.failures import describe_failure
from chat_app.services.runtime import runtime
from chat_app.services.runtime.container import App, build_app
from chat_app.services.runtime.run_stream import RunHandle, RunStream
from chat_app.services.runtime.start_lane import install_start_lane
from chat_app.services.runtime.turn_frames import (
    CloseRun,
    Loaded,
    ResumeRun,
    RunEnded,
    RunEvent,
    RunFailed,
    RunOwned,
    SendRun,
    StartRun,
    StopThread,
)
from chat_app.services.runtime.turn_process import Channel
from chat_app.serving import release_memory, tune_garbage_collector, tune_thread_switching
from chat_app.settings import read_settings

__all__ = ["serve", "main"]

_log = logging.getLogger(__name__)

RELEASE_CHECK_SECONDS = 5.0


def _events(app: App, request: StartRun, handle: RunHandle) -> RunStream:
    """The run ``request`` asks for, on this process's backend."""
    match request:
        case SendRun(owner=owner, thread_id=thread_id, text=text, client_id=client_id):
            return run_service.send_here(
                app,
                owner,
                thread_id,
                text,
                client_id,
                handle=handle,
                after_unstored=request.after_unstored,
            )
        case ResumeRun(owner=owner, thread_id=thread_id, cut=cut):
            return run_service.resume_here(app, owner, thread_id, cut=cut, handle=handle)


async def _run(app: App, channel: Channel, request: StartRun) -> None:
    run, handle, told = request.run, RunHandle(), False
    try:
        async with contextlib.aclosing(_events(app, request, handle)) as events:
            async for event in events:
                if handle.owned and not told:  # the run set it before its first event
                    channel.post(RunOwned(run))
                    told = True
                channel.post(RunEvent(run, event))
    except asyncio.CancelledError:  # the worker stopped reading this run
        return
    except Exception as error:  # raised in the worker's stream, as it was raised here
        channel.post(RunFailed(run, describe_failure(error)))
        return
    channel.post(RunEnded(run))


async def _release_after_runs(app: App, runs: dict[int, asyncio.Task]) -> None:
    """Once runs have ended and none is going, give what they left back to the system
    (a full collection holds the GIL: never while turns run)."""
    owed = False
    while True:
        await asyncio.sleep(RELEASE_CHECK_SECONDS)
        if runs or app.runs_here():
            owed = True
        elif owed:
            owed = False
            await asyncio.to_thread(release_memory)


async def serve(app: App, channel: Channel) -> None:
    """Take requests from ``channel`` until it closes; run them on ``app``."""
    runs: dict[int, asyncio.Task] = {}
    releaser = asyncio.create_task(_release_after_runs(app, runs))
    channel.post(Loaded())
    try:
        while True:
            try:
                request = await channel.receive()
            except (asyncio.IncompleteReadError, ConnectionError, OSError):
                return
            match request:
                case CloseRun(run=run):
                    task = runs.get(run)
                    if task is not None:
                        task.cancel()
                case StopThread(thread_id=thread_id):
                    app.request_stop(thread_id)
                case SendRun(run=run) | ResumeRun(run=run):
                    task = asyncio.create_task(
                        _run(app, channel, request), name=f"baton-turn-{run}"
                    )
                    runs[run] = task
                    task.add_done_callback(lambda _, run=run: runs.pop(run, None))
                case other:
                    raise TypeError(f"not a request: {type(other).__name__}")
    finally:
        releaser.cancel()


async def _main(fd: int) -> None:
    loop = asyncio.get_running_loop()
    # The same start-up as the web worker's lifespan tasks (chat_app.chat_app).
    install_start_lane(loop)
    # The turn process's composition root: its settings read once from the environment it
    # inherited, and the one app its runs are handed.
    app = await asyncio.to_thread(build_app, read_settings())
    await asyncio.to_thread(runtime.load_tokenizers, app)
    tune_garbage_collector()
    tune_thread_switching()
    reader, writer = await asyncio.open_unix_connection(sock=socket.socket(fileno=fd))
    await serve(app, Channel(reader, writer))
    # The worker has gone. Whatever still runs (a turn, a thread in a provider call) ends
    # with the process now: waiting for it would hold its turn lock from the worker's next
    # turn process.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def main(argv: list[str]) -> None:
    install_log_redaction()
    logging.basicConfig(
        level=logging.WARNING,
        stream=sys.stderr,
        format="%(asctime)s turn-process %(levelname)s %(name)s: %(message)s",
    )
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_main(int(argv[1])))


if __name__ == "__main__":
    main(sys.argv)
