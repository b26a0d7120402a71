"""Paths in a thread's virtual workspace: the one rule every tool and every store follows.

A path is relative to the workspace root, stays inside it and fits the store's column
(:data:`MAX_PATH_CHARS`, which the SQL model uses for its ``varchar`` length). It must also
stay inside the folder it is extracted to on *any* system, since "Download all" hands the
workspace to Windows extractors too: there ``\\`` separates folders, ``C:x`` names a drive,
``a:b`` a hidden stream, and a segment such as ``.. `` or ``...`` loses its trailing dots and
spaces and climbs up. So those are refused as names, and :func:`portable_name` maps anything
stored before this rule (or copied in by other means) to a name that is safe everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from agent_core.errors import StoreError, ToolInputError
from agent_core.validation import sanitize_text

__all__ = [
    "MAX_PATH_CHARS",
    "workspace_path",
    "stored_path",
    "portable_name",
    "portable_names",
    "base_name",
]

#: Longest path a workspace file may have, in characters (the SQL column's length).
MAX_PATH_CHARS = 500
_ABSOLUTE = re.compile(r"^(?:[/\\]|~(?:[/\\]|$)|[A-Za-z]:[/\\])")  # /x, \x, ~/x, C:\x, C:/x
# C0 controls and DEL: they cannot be shown, and a newline would break a header or a listing.
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# A segment of dots and spaces only ("..", "... ", ". ."): Windows drops trailing dots and
# spaces, so every such segment is "." or ".." there.
_DOTS_ONLY = re.compile(r"^[. ]+$")


def workspace_path(path: str) -> str:
    """``path`` in its stored form (``./`` and empty segments dropped), or
    :class:`~agent_core.errors.ToolInputError` saying how to name the file instead."""
    stripped = path.strip()
    if not stripped:
        raise ToolInputError(
            "the path is empty; name a file relative to the workspace root, e.g. src/app.py"
        )
    if sanitize_text(stripped) != stripped or _CONTROL.search(stripped):
        raise ToolInputError(
            "the path contains characters a file name cannot hold (control characters, NUL "
            "or unpaired surrogates)"
        )
    if _ABSOLUTE.match(stripped):
        raise ToolInputError(
            f"{_shown(stripped)} is an absolute path; use a path relative to the workspace root, "
            "e.g. src/app.py"
        )
    if "\\" in stripped:
        raise ToolInputError(
            f"{_shown(stripped)} contains a backslash; separate folders with '/', e.g. src/app.py"
        )
    if ":" in stripped:
        raise ToolInputError(
            f"{_shown(stripped)} contains ':', which names a drive or a stream on Windows; "
            "use another character, e.g. '-'"
        )
    segments = [s for s in stripped.split("/") if s not in ("", ".")]
    if ".." in segments:
        raise ToolInputError(
            f"{_shown(stripped)} leaves the workspace ('..'); use a path inside it"
        )
    if any(_DOTS_ONLY.match(segment) for segment in segments):
        raise ToolInputError(
            f"{_shown(stripped)} has a folder or file name made of dots and spaces only; "
            "give it a name with a letter or a digit"
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


def stored_path(path: str) -> str:
    """``path`` itself when a store may keep it as given (its stored form, as
    :func:`workspace_path` returns it), else :class:`~agent_core.errors.StoreError`: the
    stores check every path they write, so no way in can skip the rule."""
    if len(path) > MAX_PATH_CHARS:  # SQLite would store it; PostgreSQL's varchar refuses
        raise StoreError(f"the path is longer than {MAX_PATH_CHARS} characters; nothing was stored")
    try:
        canonical = workspace_path(path)
    except ToolInputError as exc:
        raise StoreError(f"{exc}; nothing was stored") from None
    if canonical != path:
        raise StoreError(
            f"{_shown(path)} is not a stored path (that is {_shown(canonical)}); nothing was stored"
        )
    return path


def portable_name(path: str) -> str:
    """A stored ``path`` as a name that no extractor (Windows included) can put outside its
    folder: the path itself when :func:`workspace_path` accepts it, else the same segments,
    split at ``/`` and ``\\``, with each character no name may hold (``:``, controls) turned
    into ``_`` and each dots-only segment into ``_`` (pure)."""
    try:
        return workspace_path(path)
    except ToolInputError:
        pass
    segments = []
    for segment in re.split(r"[/\\]", path):
        if segment in ("", "."):
            continue
        segment = _CONTROL.sub("_", sanitize_text(segment)).replace(":", "_").strip()
        segments.append("_" if not segment or _DOTS_ONLY.match(segment) else segment)
    return "/".join(segments)[:MAX_PATH_CHARS].rstrip("/") or "_"


def portable_names(paths: Iterable[str]) -> dict[str, str]:
    """Each of ``paths`` mapped to its :func:`portable_name`, made unique where two would
    meet (``a\\b.txt`` beside ``a/b.txt`` gives ``a/b-2.txt``); in sorted order (pure)."""
    names: dict[str, str] = {}
    taken: set[str] = set()
    ordered = sorted(paths, key=lambda p: (portable_name(p) != p, p))  # valid names keep theirs
    for path in ordered:
        name = candidate = portable_name(path)
        number = 1
        folder, slash, leaf = name.rpartition("/")
        stem, dot, extension = leaf.rpartition(".")
        while candidate in taken:
            number += 1
            numbered = f"{stem}-{number}.{extension}" if dot and stem else f"{leaf}-{number}"
            candidate = folder + slash + numbered
        taken.add(candidate)
        names[path] = candidate
    return dict(sorted(names.items()))


def base_name(name: str) -> str:
    """The last segment of a name a browser or a file gives, split at ``/`` and ``\\``
    (a browser may send ``C:\\Users\\me\\a.py``; ``os.path.basename`` on Linux keeps it)."""
    return re.split(r"[/\\]", name.strip())[-1].strip()


def _shown(path: str) -> str:
    """The path as quoted in an error: never long enough to flood the model's context."""
    return repr(path if len(path) <= 80 else path[:77] + "...")
