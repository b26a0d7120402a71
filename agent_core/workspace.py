"""Paths in a thread's virtual workspace: the one rule every tool and every store follows.

A path is relative to the workspace root, stays inside it and fits the store's column
(:data:`MAX_PATH_CHARS`, which the SQL model uses for its ``varchar`` length).
"""

from __future__ import annotations

import re

from agent_core.errors import ToolInputError
from agent_core.validation import sanitize_text

__all__ = ["MAX_PATH_CHARS", "workspace_path"]

#: Longest path a workspace file may have, in characters (the SQL column's length).
MAX_PATH_CHARS = 500
_ABSOLUTE = re.compile(r"^(?:[/\\]|~(?:[/\\]|$)|[A-Za-z]:[/\\])")  # /x, \x, ~/x, C:\x, C:/x


def workspace_path(path: str) -> str:
    """``path`` in its stored form (``./`` and empty segments dropped), or
    :class:`~agent_core.errors.ToolInputError` saying how to name the file instead."""
    stripped = path.strip()
    if not stripped:
        raise ToolInputError(
            "the path is empty; name a file relative to the workspace root, e.g. src/app.py"
        )
    if sanitize_text(stripped) != stripped:
        raise ToolInputError(
            "the path contains characters a file name cannot hold (NUL or unpaired surrogates)"
        )
    if _ABSOLUTE.match(stripped):
        raise ToolInputError(
            f"{_shown(stripped)} is an absolute path; use a path relative to the workspace root, "
            "e.g. src/app.py"
        )
    segments = [s for s in stripped.split("/") if s not in ("", ".")]
    if ".." in segments:
        raise ToolInputError(
            f"{_shown(stripped)} leaves the workspace ('..'); use a path inside it"
        )
    cleaned = "/".join(segments)
    if not cleaned:
        raise ToolInputError("the path names the workspace root, not a file; e.g. use src/app.py")
    if len(cleaned) > MAX_PATH_CHARS:
        raise ToolInputError(
            f"the path is {len(cleaned)} characters long; the workspace allows at most "
            f"{MAX_PATH_CHARS}. Use a shorter path"
        )
    return cleaned


def _shown(path: str) -> str:
    """The path as quoted in an error: never long enough to flood the model's context."""
    return repr(path if len(path) <= 80 else path[:77] + "...")
