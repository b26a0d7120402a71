"""What a fork of a thread keeps: pure rules every store applies the same way.

A fork copies a thread up to (not including) one of its user messages, whose edited text is
then sent as the fork's next message. The stores copy the rows and sessions; these functions
decide which context edits and workspace files go with them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from agent_core.storage._records import ContextEdit, StoredMessage
from agent_core.storage._workspace import portable_names

__all__ = ["kept_edits", "kept_files"]

# handoff.artifact.handoff_filename's names: HANDOFF-{n}.md is written when session n ends.
_HANDOFF_FILE = re.compile(r"HANDOFF-(\d+)\.md")


def _seqs(edit: ContextEdit) -> list[int]:
    named = list(edit.seqs) + [int(seq) for seq in edit.placeholders]
    return named + ([edit.upto_seq] if edit.upto_seq is not None else [])


def kept_edits(
    edits: Sequence[ContextEdit], rows: Iterable[StoredMessage], before_seq: int
) -> list[ContextEdit]:
    """The session's edits made before the cut: the longest prefix (edits are made in order,
    and their positions must not change) whose every edit names only rows before
    ``before_seq`` and whose marker row, when it has one, is before the cut too."""
    markers_after = {
        int(row.meta["edit"])
        for row in rows
        if row.role == "event" and row.seq >= before_seq and isinstance(row.meta.get("edit"), int)
    }
    kept: list[ContextEdit] = []
    for position, edit in enumerate(edits):
        if position in markers_after or any(seq >= before_seq for seq in _seqs(edit)):
            break
        kept.append(edit)
    return kept


def kept_files(paths: Iterable[str], last_session_number: int) -> dict[str, str]:
    """The workspace files a fork copies, as ``{name in the fork: path in the source}``: the
    store keeps no history of files, so they are copied as they are now, except the handoffs
    of sessions the fork does not have (``HANDOFF-{n}.md`` opens session n+1). A name stored
    before today's path rule (``..\\..\\x.txt``) enters the fork as its portable name."""

    def later(path: str) -> bool:
        match = _HANDOFF_FILE.fullmatch(path)
        return match is not None and int(match.group(1)) >= last_session_number

    names = portable_names(path for path in paths if not later(path))
    return {name: path for path, name in names.items()}
