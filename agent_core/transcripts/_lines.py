"""JSON-lines session files read tolerantly: every line parsed, what a reader does not read
passed over and counted by why, so an import can say what it left out."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agent_core.errors import TranscriptFormatError

__all__ = ["SkippedLines", "json_lines"]


def json_lines(
    path: Path, text: str, skipped: SkippedLines | None = None
) -> Iterator[tuple[int, Any]]:
    """(line number, parsed value) for every non-blank line. A line that is not JSON is an
    error naming it, except a last line with no line end after it: the file of a session
    still being written, cut mid-record, which is counted in ``skipped`` (when given)."""
    lines = text.splitlines()
    cut_off = bool(lines) and not text.endswith(("\n", "\r"))
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as exc:
            if skipped is not None and cut_off and number == len(lines):
                skipped.skip("a last line cut off mid-record (the session was still being written)")
                return
            raise TranscriptFormatError(
                f"invalid JSON ({exc.msg} at column {exc.colno}); expected one JSON object per "
                "line (is the file truncated?)",
                line=number,
                path=str(path),
            ) from exc


class SkippedLines(Counter[str]):
    """Lines passed over, by why (``"not Claude Code records"``: count)."""

    def skip(self, why: str) -> None:
        self[why] += 1

    def unknown_kinds(self, kinds: Counter[str], what: str) -> None:
        """Records of kinds the reader does not read, named (``record types pi's reader
        does not read (label, custom)``)."""
        if kinds:
            names = ", ".join(sorted(kinds))
            self[f"{what} record types this reader does not read ({names})"] += sum(kinds.values())
