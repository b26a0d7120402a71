"""The workspace as a directory on the host: written out before a run, read back after.

Reading back never follows a symbolic link and never opens anything but a regular file, so a
link the command planted (to another thread's workspace, the database, a key) is reported as
a link and its target is not read.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Mapping
from pathlib import Path

from agent_core.sandbox.changes import IGNORED_DIRS, Entry

__all__ = ["materialize", "scan", "hand_over", "remove"]


def materialize(root: Path, files: Mapping[str, str]) -> dict[str, str]:
    """Write ``files`` under ``root``; return the ones written (a path that collides with
    another file's directory cannot be, and then counts as absent from the workspace)."""
    placed: dict[str, str] = {}
    for path, content in files.items():
        target = root / path
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
        except (NotADirectoryError, IsADirectoryError, FileExistsError):
            continue
        placed[path] = content
    return placed


def hand_over(root: Path, uid: int) -> None:
    """Give the workspace to the sandbox's user, so the command can write in it."""
    for directory, dirs, names in os.walk(root):
        os.chown(directory, uid, uid)
        for name in (*dirs, *names):
            os.chown(os.path.join(directory, name), uid, uid, follow_symlinks=False)


def scan(root: Path, *, limit: int) -> dict[str, Entry]:
    """Every non-directory under ``root`` by relative path, text read up to ``limit`` bytes."""
    found: dict[str, Entry] = {}
    pending = [root]
    while pending:
        directory = pending.pop()
        with os.scandir(directory) as entries:
            for item in entries:
                relative = os.path.relpath(item.path, root).replace(os.sep, "/")
                if item.is_symlink():
                    found[relative] = Entry("symlink")
                elif item.is_dir(follow_symlinks=False):
                    if item.name not in IGNORED_DIRS:
                        pending.append(Path(item.path))
                else:
                    found[relative] = _read(item.path, limit)
    return found


def _read(path: str, limit: int) -> Entry:
    try:
        # O_NOFOLLOW: a link swapped in since the scandir is refused, not followed.
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return Entry("other")
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            return Entry("other")
        if info.st_size > limit:
            return Entry("too_large", size=info.st_size)
        data = handle.read(limit + 1)
    if len(data) > limit:
        return Entry("too_large", size=len(data))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Entry("binary", size=len(data))
    if "\x00" in text:
        return Entry("binary", size=len(data))
    return Entry("text", text=text, size=len(data))


def remove(root: Path) -> None:
    """Delete the workspace directory, even parts the command made unreadable."""

    def unlock_and_retry(function, path, _exc_info) -> None:  # type: ignore[no-untyped-def]
        os.chmod(os.path.dirname(path), 0o700)
        if os.path.isdir(path) and not os.path.islink(path):
            os.chmod(path, 0o700)
        function(path)

    shutil.rmtree(root, onerror=unlock_and_retry)
