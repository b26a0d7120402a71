"""The write-back decision: which files a run created, changed or deleted (pure).

The workspace is read back into :class:`Entry` values first (by
:mod:`agent_core.sandbox._workspace_dir`); this module only compares them with what the
store held, so every rule here is tested without a sandbox.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from agent_core.errors import ToolInputError
from agent_core.sandbox._result import WorkspaceChanges, megabytes
from agent_core.storage._workspace import workspace_path

__all__ = ["Entry", "workspace_changes", "IGNORED_DIRS", "MAX_NOTES"]

# Caches that tools drop beside the code; they are not the agent's work and would flood the
# store with rows nobody reads.
IGNORED_DIRS = frozenset({"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"})

EntryKind = Literal["text", "binary", "too_large", "symlink", "other"]


@dataclass(frozen=True)
class Entry:
    """One non-directory found in the workspace after a run; ``text`` only for ``text``."""

    kind: EntryKind
    text: str = ""
    size: int = 0


_WHY_SKIPPED = {
    "binary": "{path} is not UTF-8 text",
    "too_large": "{path} is larger than the {limit} bytes the workspace keeps",
    "symlink": "{path} is a symbolic link; links are not followed",
    "other": "{path} is not a regular file",
}


#: Notes past this many are summed up in one line: a command that leaves ten thousand
#: binary files must not flood the model's context with ten thousand notes.
MAX_NOTES = 20


def workspace_changes(
    before: Mapping[str, str],
    after: Mapping[str, Entry],
    *,
    limit: int = 0,
    max_files: int | None = None,
    max_bytes: int | None = None,
) -> WorkspaceChanges:
    """What to write back: text files new or different from ``before``, the paths of
    ``before`` that are gone, and a note for each file that exists but cannot be stored.

    A stored file replaced by something unstorable (a link, binary data) is neither
    overwritten nor deleted: the store keeps the last text it had, and the note says why.
    More than ``max_files`` files (or ``max_bytes`` of text) new or changed, and nothing
    is written back or deleted: the note says how many and what the limit is.
    """
    written: dict[str, str] = {}
    skipped: list[str] = []
    for path, entry in sorted(after.items()):
        if entry.kind == "text" and before.get(path) == entry.text:
            continue  # unchanged (even a name stored before today's path rule)
        if entry.kind != "text":
            skipped.append(_WHY_SKIPPED[entry.kind].format(path=path, limit=limit))
            continue
        try:
            stored = workspace_path(path)
        except ToolInputError as exc:
            skipped.append(f"{path[:80]}: {exc}")
            continue
        if before.get(stored) != entry.text:
            written[stored] = entry.text
    deleted = tuple(path for path in sorted(before) if path not in after)
    size = sum(len(text.encode("utf-8")) for text in written.values())
    if max_files is not None and len(written) > max_files:
        return WorkspaceChanges(
            skipped=(
                f"the command created or changed {len(written):,} files; at most {max_files:,} "
                "are written back from one command, so none was (nor any deletion). Leave "
                "generated trees outside /workspace (in /tmp) or remove them before it ends",
            )
        )
    if max_bytes is not None and size > max_bytes:
        return WorkspaceChanges(
            skipped=(
                f"the command created or changed {megabytes(size)} of text files; at most "
                f"{megabytes(max_bytes)} are written back from one command, so nothing was",
            )
        )
    return WorkspaceChanges(written=written, deleted=deleted, skipped=_summed(skipped))


def _summed(notes: list[str]) -> tuple[str, ...]:
    if len(notes) <= MAX_NOTES:
        return tuple(notes)
    rest = len(notes) - MAX_NOTES
    return (
        *notes[:MAX_NOTES],
        f"{rest:,} more files that cannot be kept (links, binary or "
        "too large files, or names the workspace refuses)",
    )
