"""The pinned files (plan, sprint contracts, evaluator config) a new session opens with."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from typing import Any

from agent_core.storage._records import NewMessage

__all__ = ["pinned_context"]

_PINNED_MAX_CHARS = 40_000


def pinned_context(store: Any, thread_id: str, patterns: Sequence[str]) -> list[NewMessage]:
    """Rows for the pinned files (plan, sprint contracts, evaluator config) of a thread."""
    rows: list[NewMessage] = []
    for path in store.list_files(thread_id):
        if path.startswith("HANDOFF-") or not any(fnmatch.fnmatch(path, p) for p in patterns):
            continue
        content = store.read_file(thread_id, path) or ""
        note = ""
        if len(content) > _PINNED_MAX_CHARS:
            content, note = (
                content[:_PINNED_MAX_CHARS],
                "\n[... truncated; read_file shows the rest]",
            )
        rows.append(
            NewMessage(
                role="pinned",
                content=f'<pinned-file path="{path}">\n{content}{note}\n</pinned-file>',
                meta={"path": path},
            )
        )
    return rows
