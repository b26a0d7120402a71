"""What a sandboxed run is given (limits) and what it gives back (result, file changes)."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["SandboxLimits", "SandboxResult", "WorkspaceChanges"]


@dataclass(frozen=True)
class SandboxLimits:
    """Ceilings on one run. Each one stops a command that would otherwise take the host down
    with it: an endless loop (``timeout``), a memory hog (``memory_bytes``), a fork bomb
    (``processes``), a flood of output (``output_bytes``) or of disk (``file_bytes``)."""

    timeout: float = 60.0
    memory_bytes: int = 2 * 1024**3
    processes: int = 128
    output_bytes: int = 256 * 1024
    file_bytes: int = 64 * 1024**2
    tmp_bytes: int = 256 * 1024**2
    # Files larger than this are not written back to the store (which keeps text files).
    writeback_bytes: int = 1024**2


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
    command that was killed (by a limit or by Stop), 124 when it ran out of time."""

    exit_status: int
    output: str
    changes: WorkspaceChanges = field(default_factory=WorkspaceChanges)
    timed_out: bool = False
    output_truncated: bool = False

    @property
    def notes(self) -> list[str]:
        """Lines telling the model what a limit or the write-back did to this run."""
        notes = []
        if self.timed_out:
            notes.append("[stopped: the command ran out of time]")
        if self.output_truncated:
            notes.append("[stopped: the command printed more output than the limit]")
        notes.extend(f"[not kept: {note}]" for note in self.changes.skipped)
        return notes
