"""The bubblewrap command line for one run (pure: the host's layout is passed in).

What the command sees: the system directories read-only, the workspace read-write at
:data:`WORKSPACE` (its working directory, a tmpfs of a fixed size), a private ``/tmp`` and
``/dev/shm`` (tmpfs of fixed sizes), ``/proc``, a minimal read-only ``/dev`` and a few files
of ``/etc``; no other path of the host exists inside, and nothing else is writable. Every namespace is unshared, the network included unless it is allowed.

The sandbox's pid 1 is :data:`HOLDER`, a short shell script: it unpacks the workspace from
its standard input (a socket), runs the command, kills whatever the command left running
and writes the workspace back to the same socket as a tar. As pid 1 of its namespace it
cannot be killed from inside (the kernel ignores a signal to it that it does not handle),
so a command cannot keep its files from being read back; ``SIGUSR1`` from the host stops the
command (time, output or memory limit) and still reads the files back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "WORKSPACE",
    "SYSTEM_DIRS",
    "ETC_FILES",
    "HOLDER",
    "HostPath",
    "bwrap_argv",
    "sandbox_env",
]

WORKSPACE = "/workspace"
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# Enough for programs to start (dynamic loader cache, alternatives, user names, time zone);
# nothing that names the host's other users' secrets.
ETC_FILES = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/localtime",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
)
NETWORK_ETC_FILES = ("/etc/resolv.conf", "/etc/hosts", "/etc/ssl", "/etc/ca-certificates")

# $1: the command, $2: tar. The command gets /dev/null as its input, never the socket.
# `wait` returns early when the stop signal arrives; the second `wait` collects the killed
# command. `kill -KILL -1` reaches every process of the namespace but pid 1 itself; files a
# command made unreadable are opened up (its user owns them all) so tar reads every one.
HOLDER = """\
trap 'stop=1; kill -KILL -1 2>/dev/null' USR1
"$2" -x -f - -C /workspace --no-same-owner || {
  echo "the workspace could not be copied into the sandbox"; exit 125; }
status=137
if [ -z "$stop" ]; then
  /bin/sh -c "$1" </dev/null &
  wait $!; status=$?
  if [ -n "$stop" ]; then wait $! 2>/dev/null; status=137; fi
fi
trap '' USR1
kill -KILL -1 2>/dev/null
wait
chmod -R u+rwX /workspace 2>/dev/null
"$2" -c -f - -C /workspace . >&0 2>/dev/null
exit $status
"""


@dataclass(frozen=True)
class HostPath:
    """A path of the host as it will appear inside: a link (merged-/usr systems have
    ``/bin -> usr/bin``) is recreated as a link, anything else is bound read-only."""

    path: str
    link_target: str | None = None


def sandbox_env(*, extra_path: Sequence[str] = ()) -> dict[str, str]:
    """The command's whole environment: nothing of the app's (keys, database URL) leaks in."""
    return {
        "PATH": ":".join([*extra_path, "/usr/local/bin", "/usr/bin", "/bin"]),
        "HOME": "/tmp",
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        # Caches would be written back as workspace files; they are not the agent's work.
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTEST_ADDOPTS": "-p no:cacheprovider",
    }


def bwrap_argv(
    bwrap: str,
    *,
    command: str,
    system: Sequence[HostPath],
    env: Mapping[str, str],
    prlimit: str,
    tar: str,
    processes: int,
    workspace_bytes: int,
    network: bool = False,
    tmp_bytes: int = 256 * 1024**2,
    shm_bytes: int = 64 * 1024**2,
) -> list[str]:
    """The argument vector running ``command`` with ``/bin/sh -c`` inside the sandbox, under
    :data:`HOLDER` with the workspace a tmpfs of ``workspace_bytes``.

    The process limit is set inside, by ``prlimit``: there the kernel counts only the
    processes of the sandbox's own user namespace, whereas set outside it would count every
    process the app's user runs (the app's threads included) and refuse even a first fork.
    """
    # No user namespace inside: a nested one would give the command root over its own mounts.
    argv = [
        bwrap,
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        "--as-pid-1",
    ]
    if network:
        argv.append("--share-net")
    for host in system:
        if host.link_target is not None:
            argv += ["--symlink", host.link_target, host.path]
        else:
            argv += ["--ro-bind-try", host.path, host.path]
    argv += [
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--size",
        str(tmp_bytes),
        "--tmpfs",
        "/tmp",
        "--size",
        str(shm_bytes),
        "--tmpfs",
        "/dev/shm",
    ]
    argv += ["--size", str(workspace_bytes), "--tmpfs", WORKSPACE, "--chdir", WORKSPACE]
    # The root and /dev are tmpfs too, of no fixed size: read-only, they cannot be filled.
    argv += ["--remount-ro", "/dev", "--remount-ro", "/"]
    for name, value in sorted(env.items()):
        argv += ["--setenv", name, value]
    limit = f"--nproc={processes}:{processes}"
    return [
        *argv,
        "--",
        prlimit,
        limit,
        "--",
        "/bin/sh",
        "-c",
        HOLDER,
        "baton-sandbox",
        command,
        tar,
    ]
