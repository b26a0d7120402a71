"""The bubblewrap command line for one run (pure: the host's layout is passed in).

What the command sees: the system directories read-only, the workspace read-write at
:data:`WORKSPACE` (its working directory), a private ``/tmp`` and ``/proc``, a minimal
``/dev`` and a few files of ``/etc``; no other path of the host exists inside. Every
namespace is unshared, the network included unless it is allowed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["WORKSPACE", "SYSTEM_DIRS", "ETC_FILES", "HostPath", "bwrap_argv", "sandbox_env"]

WORKSPACE = "/workspace"
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# Enough for programs to start (dynamic loader cache, alternatives, user names, time zone);
# nothing that names the host's other users' secrets.
ETC_FILES = (
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
    "/etc/localtime", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf",
)
NETWORK_ETC_FILES = ("/etc/resolv.conf", "/etc/hosts", "/etc/ssl", "/etc/ca-certificates")


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
    workspace: str,
    command: str,
    system: Sequence[HostPath],
    env: Mapping[str, str],
    prlimit: str,
    processes: int,
    network: bool = False,
    tmp_bytes: int = 256 * 1024**2,
) -> list[str]:
    """The argument vector running ``command`` with ``/bin/sh -c`` inside the sandbox.

    The process limit is set inside, by ``prlimit``: there the kernel counts only the
    processes of the sandbox's own user namespace, whereas set outside it would count every
    process the app's user runs (the app's threads included) and refuse even a first fork.
    """
    # No user namespace inside: a nested one would give the command root over its own mounts.
    argv = [bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
            "--new-session", "--clearenv"]
    if network:
        argv.append("--share-net")
    for host in system:
        if host.link_target is not None:
            argv += ["--symlink", host.link_target, host.path]
        else:
            argv += ["--ro-bind-try", host.path, host.path]
    argv += ["--proc", "/proc", "--dev", "/dev", "--size", str(tmp_bytes), "--tmpfs", "/tmp"]
    argv += ["--bind", workspace, WORKSPACE, "--chdir", WORKSPACE]
    for name, value in sorted(env.items()):
        argv += ["--setenv", name, value]
    limit = f"--nproc={processes}:{processes}"
    return [*argv, "--", prlimit, limit, "--", "/bin/sh", "-c", command]
