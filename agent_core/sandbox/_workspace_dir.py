"""The workspace on its way into the sandbox and back: a tar stream each way.

Inside, the workspace is a size-limited tmpfs that lives only as long as the run, so the
kernel itself refuses a write past the disk limit, and nothing of a run is ever written to
the host's disk. The files go in as a tar the sandbox unpacks, and come back as a tar its
own init writes once every process of the command is dead (see
:data:`agent_core.sandbox._argv.HOLDER`).

Reading back never follows a link: a link the command planted (to another thread's
workspace, the database, a key) is reported as a link, and its target is never read. It
reads at most ``max_entries`` entries and keeps at most ``max_changed_bytes`` of changed
text, so a command cannot make the app hold more than that in memory.
"""

from __future__ import annotations

import contextlib
import io
import socket
import tarfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import BinaryIO

from agent_core.sandbox._changes import IGNORED_DIRS, Entry
from agent_core.sandbox._result import megabytes

__all__ = ["Readback", "placeable", "pack", "tmpfs_bytes", "unpack", "exchange"]

_PAGE = 4096


@dataclass(frozen=True)
class Readback:
    """The workspace as the command left it (``entries``), or ``problem``: why it could not
    be read back, in which case nothing is written back."""

    entries: dict[str, Entry] = field(default_factory=dict)
    problem: str = ""
    used_bytes: int = 0
    """Bytes the regular files take in the tmpfs (whole pages), to tell a full workspace."""


def placeable(files: Mapping[str, str]) -> dict[str, str]:
    """The files that can be laid out together (pure): a path under another file's path
    (``a`` beside ``a/b``) cannot be, and then counts as absent from the workspace (the
    earlier one, in sorted order, is placed)."""
    placed: dict[str, str] = {}
    folders: set[str] = set()
    for path in sorted(files):
        parents = ["/".join(path.split("/")[:i]) for i in range(1, path.count("/") + 1)]
        if path in folders or any(parent in placed for parent in parents):
            continue
        placed[path] = files[path]
        folders.update(parents)
    return placed


def pack(files: Mapping[str, str]) -> bytes:
    """``files`` as a tar the sandbox unpacks into its workspace, dated now (a build tool
    comparing times sees them as fresh, as it saw files written on disk)."""
    buffer = io.BytesIO()
    now = time.time()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for path, text in files.items():
            data = text.encode("utf-8")
            info = tarfile.TarInfo(path)
            info.size, info.mtime, info.mode = len(data), now, 0o644
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def tmpfs_bytes(files: Mapping[str, str]) -> int:
    """What ``files`` take in a tmpfs: whole pages per file, and a page per folder."""
    folders = {path.rsplit("/", 1)[0] for path in files if "/" in path}
    pages = sum(-(-len(text.encode("utf-8")) // _PAGE) for text in files.values())
    return (pages + len(folders)) * _PAGE


def unpack(
    stream: BinaryIO,
    *,
    before: Mapping[str, str],
    limit: int,
    max_entries: int,
    max_changed_bytes: int,
) -> Readback:
    """Read the workspace back from a tar ``stream`` (the sandbox's ``tar -c``)."""
    entries: dict[str, Entry] = {}
    changed = used = 0
    try:
        with tarfile.open(fileobj=stream, mode="r|") as archive:
            for member in archive:
                path = member.name.removeprefix("./")
                if member.isdir() or path in ("", ".") or _ignored(path):
                    continue
                if len(entries) >= max_entries:
                    return Readback(
                        problem=(
                            f"the command left more than {max_entries:,} files in the workspace; "
                            "nothing was written back (nor deleted). Leave generated trees "
                            "outside /workspace (in /tmp) or remove them before it ends"
                        )
                    )
                entry = _entry(archive, member, entries, limit)
                entries[path] = entry
                if member.isreg():
                    used += -(-member.size // _PAGE) * _PAGE
                if entry.kind == "text":
                    if before.get(path) == entry.text:
                        entries[path] = Entry("text", text=before[path], size=entry.size)
                    else:
                        changed += entry.size
                if changed > max_changed_bytes:
                    return Readback(
                        problem=(
                            f"the command created or changed more than "
                            f"{megabytes(max_changed_bytes)} of text files; at most that is "
                            "written back from one command, so nothing was"
                        )
                    )
    except (tarfile.TarError, OSError, EOFError) as exc:
        return Readback(
            problem=f"the workspace could not be read back after the command "
            f"({type(exc).__name__}); nothing was written back"
        )
    return Readback(entries=entries, used_bytes=used)


def _ignored(path: str) -> bool:
    return any(part in IGNORED_DIRS for part in path.split("/")[:-1])


def _entry(
    archive: tarfile.TarFile, member: tarfile.TarInfo, seen: Mapping[str, Entry], limit: int
) -> Entry:
    if member.issym():
        return Entry("symlink")
    if member.islnk():  # a hard link: the same file as one read before it
        return seen.get(member.linkname.removeprefix("./"), Entry("other"))
    if not member.isreg():
        return Entry("other")
    if member.size > limit:
        return Entry("too_large", size=member.size)
    handle = archive.extractfile(member)
    data = handle.read() if handle is not None else b""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Entry("binary", size=len(data))
    if "\x00" in text:
        return Entry("binary", size=len(data))
    return Entry("text", text=text, size=len(data))


def exchange(
    connection: socket.socket,
    archive: bytes,
    *,
    before: Mapping[str, str],
    limit: int,
    max_entries: int,
    max_changed_bytes: int,
    idle_seconds: float,
) -> Readback:
    """Send ``archive`` into the sandbox, then read the workspace back from the same
    connection (blocking: run it in a thread). The sandbox's end closes when the run ends,
    so this returns then at the latest; ``idle_seconds`` bounds each wait for data."""
    connection.settimeout(idle_seconds)
    try:
        connection.sendall(archive)
        connection.shutdown(socket.SHUT_WR)
    except OSError:
        return Readback(
            problem="the workspace could not be copied into the sandbox; nothing was written back"
        )
    try:
        with connection.makefile("rb") as stream:
            return unpack(
                stream,
                before=before,
                limit=limit,
                max_entries=max_entries,
                max_changed_bytes=max_changed_bytes,
            )
    finally:
        # Read no further: a sandbox still writing (past a limit) gets a broken pipe and ends.
        with contextlib.suppress(OSError):
            connection.shutdown(socket.SHUT_RDWR)
