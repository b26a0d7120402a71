"""The memory of a whole command, all its processes together, watched from the host.

The kernel's per-process limit (``RLIMIT_AS``) does not stop three processes of one command
from taking three times the memory. A memory cgroup would, but only where the app may
create one: cgroup v2 with a delegated subtree (a systemd unit with ``Delegate=yes``), which
most containers and plain hosts do not give an unprivileged app, and cgroup v1 hosts not at
all. So the host sums the proportional resident memory (PSS, from ``smaps_rollup``: shared
pages counted once among their sharers, so a forking test runner is not counted N times)
of every process under the sandbox, ten times a second, and the run stops the command past
the limit. A burst between two looks is bounded by the per-process limit.

Memory in a memfd (``memfd_create``) belongs to no mapping: while unmapped it is in no
process's PSS, and neither ``RLIMIT_AS`` nor the per-file size limit stops a command from
holding many of them (1,250 MB held under a 1,024 MB limit). So every memfd an open file
descriptor of the tree refers to is counted too, once however many descriptors share it,
by the memory its file holds; a memfd's pages that are also mapped are taken out of the
PSS (``Pss_Shmem``) so they are not counted twice. Shared memory of ``/dev/shm`` and
``/tmp`` needs no count here: those are tmpfs of fixed sizes.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable

__all__ = [
    "children",
    "process_tree",
    "resident_bytes",
    "memfd_bytes",
    "total_resident",
    "memory_over",
]

_INTERVAL_SECONDS = 0.1


def children(pid: int) -> list[int]:
    """The direct children of ``pid`` (any of its threads may have started them), from
    ``/proc/<pid>/task/<tid>/children``; on a kernel without those files, from every
    process's parent in ``/proc/<pid>/stat``."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    if not os.path.exists(f"/proc/{pid}/task/{pid}/children"):
        return _children_by_parent(pid)
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                found.extend(int(word) for word in handle.read().split())
        except OSError:
            continue
    return found


def _children_by_parent(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        # "pid (name) state ppid ...": the name may hold spaces and parentheses.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 1 and int(fields[1]) == pid:
            found.append(int(entry))
    return found


def process_tree(pid: int) -> list[int]:
    """``pid`` and every process under it (orphans of the sandbox are reparented to its
    pid 1, which is under ``pid`` too, so none escapes the count)."""
    tree, pending = [], [pid]
    while pending:
        current = pending.pop()
        tree.append(current)
        pending.extend(children(current))
    return tree


def resident_bytes(pid: int) -> int:
    """The proportional resident memory of ``pid`` but for its mapped shared memory (which
    :func:`memfd_bytes` counts); its resident set where the kernel has no ``smaps_rollup``;
    0 for a process that is gone."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as handle:
            pss = shmem = None
            for line in handle:
                if line.startswith(b"Pss:"):
                    pss = int(line.split()[1]) * 1024
                elif line.startswith(b"Pss_Shmem:"):
                    shmem = int(line.split()[1]) * 1024
            if pss is not None:
                return pss - (shmem or 0)
    except OSError:
        pass
    try:
        with open(f"/proc/{pid}/statm", "rb") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return 0


def memfd_bytes(pids: Iterable[int]) -> int:
    """The memory held by every memfd that a descriptor of ``pids`` refers to, each memfd
    counted once (by its device and inode), by the blocks its file holds."""
    held: dict[tuple[int, int], int] = {}
    for pid in pids:
        try:
            descriptors = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in descriptors:
            path = f"/proc/{pid}/fd/{fd}"
            try:
                if not os.readlink(path).startswith("/memfd:"):
                    continue
                info = os.stat(path)
            except OSError:
                continue
            held[info.st_dev, info.st_ino] = info.st_blocks * 512
    return sum(held.values())


def total_resident(pids: Iterable[int]) -> int:
    pids = list(pids)
    return sum(resident_bytes(pid) for pid in pids) + memfd_bytes(pids)


async def memory_over(pid: int, limit: int, *, interval: float = _INTERVAL_SECONDS) -> int:
    """Return, once the processes under ``pid`` use more than ``limit`` bytes together, what
    they used; runs until then (cancel it when the run ends)."""
    while True:
        used = await asyncio.to_thread(lambda: total_resident(process_tree(pid)))
        if used > limit:
            return used
        await asyncio.sleep(interval)
