"""What a sandboxed run is given (limits) and what it gives back (result, file changes)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = [
    "SandboxLimits",
    "SandboxResult",
    "WorkspaceChanges",
    "megabytes",
    "LIMIT_SETTINGS",
    "limits_from_settings",
]


@dataclass(frozen=True)
class SandboxLimits:
    """Ceilings on one run. Each one stops a command that would otherwise take the host down
    with it: an endless loop (``timeout``), a memory hog (``memory_bytes`` per process,
    ``total_memory_bytes`` for all of them together), a fork bomb (``processes``), a flood
    of output (``output_bytes``), of disk (``file_bytes`` per file, ``disk_bytes`` for the
    workspace, ``tmp_bytes`` for ``/tmp``, ``shm_bytes`` for ``/dev/shm``) or of files written back (``writeback_files``,
    ``writeback_total_bytes``)."""

    timeout: float = 60.0
    # Address space of one process (RLIMIT_AS): a single allocation past it fails at once.
    memory_bytes: int = 2 * 1024**3
    # Resident memory (PSS) of all the command's processes together: a watchdog stops the
    # command past it (no cgroup needed; see agent_core.sandbox._watchdog).
    total_memory_bytes: int = 1024**3
    processes: int = 128
    output_bytes: int = 256 * 1024
    file_bytes: int = 64 * 1024**2
    # How much the workspace may grow: it is a tmpfs of the files' size plus this, so a
    # write past it fails with "No space left on device".
    disk_bytes: int = 256 * 1024**2
    tmp_bytes: int = 256 * 1024**2
    shm_bytes: int = 64 * 1024**2
    # Files larger than this are not written back to the store (which keeps text files).
    writeback_bytes: int = 1024**2
    # More files (or bytes) created or changed by one command than this, and none is
    # written back: a half-kept tree (an install, a build) is worse than none.
    writeback_files: int = 1000
    writeback_total_bytes: int = 32 * 1024**2


#: Environment settings an administrator may tune: name -> (field, unit in bytes).
LIMIT_SETTINGS = {
    "BATON_SANDBOX_MEMORY_MB": ("total_memory_bytes", 1024**2),
    "BATON_SANDBOX_DISK_MB": ("disk_bytes", 1024**2),
    "BATON_SANDBOX_FILES": ("writeback_files", 1),
}


def limits_from_settings(settings: Mapping[str, str]) -> tuple[SandboxLimits, list[str]]:
    """The limits with the :data:`LIMIT_SETTINGS` found in ``settings`` (the environment)
    applied, and a line for each one that is not a positive whole number (left at its
    default) (pure)."""
    changes: dict[str, int] = {}
    problems = []
    for name, (field_name, unit) in LIMIT_SETTINGS.items():
        raw = settings.get(name, "").strip()
        if not raw:
            continue
        if not raw.isdigit() or int(raw) == 0:
            problems.append(f"{name}={raw!r} is not a positive whole number; the default applies")
            continue
        changes[field_name] = int(raw) * unit
    return dataclasses.replace(SandboxLimits(), **changes), problems


def megabytes(size: int) -> str:
    """``268435456`` as ``256 MB`` (binary megabytes, as the limits are set)."""
    return f"{size / 1024**2:,.0f} MB"


@dataclass(frozen=True)
class WorkspaceChanges:
    """How a run changed the workspace: ``written`` (new or changed text files),
    ``deleted`` paths, and ``skipped`` notes for files that could not be kept."""

    written: dict[str, str] = field(default_factory=dict)
    deleted: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.written or self.deleted)


@dataclass(frozen=True)
class SandboxResult:
    """The outcome of one command. ``exit_status`` follows the shell: 128 + signal for a
    command that was killed (by a limit or by Stop), 124 when it ran out of time.
    ``memory_limit`` is the limit the command's processes went over together (0: none) and
    ``disk_limit`` the growth the workspace reached (0: it did not fill)."""

    exit_status: int
    output: str
    changes: WorkspaceChanges = field(default_factory=WorkspaceChanges)
    timed_out: bool = False
    output_truncated: bool = False
    memory_limit: int = 0
    disk_limit: int = 0

    @property
    def notes(self) -> list[str]:
        """Lines telling the model what a limit or the write-back did to this run."""
        notes = []
        if self.timed_out:
            notes.append("[stopped: the command ran out of time]")
        if self.output_truncated:
            notes.append("[stopped: the command printed more output than the limit]")
        if self.memory_limit:
            notes.append(
                f"[stopped: the command's processes together used more than "
                f"{megabytes(self.memory_limit)} of memory, the limit]"
            )
        if self.disk_limit:
            notes.append(
                f"[the workspace is full: a command may write at most "
                f"{megabytes(self.disk_limit)}; writes past it failed with "
                "'No space left on device']"
            )
        notes.extend(f"[not kept: {note}]" for note in self.changes.skipped)
        return notes
