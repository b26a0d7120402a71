"""``load_transcript``: pick the importer by name, extension or content, then parse."""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import accumulate
from pathlib import Path

from pydantic import ValidationError

from agent_core.errors import TranscriptFormatError
from agent_core.transcripts._aider import load_aider, looks_like_aider
from agent_core.transcripts._claude_code import load_claude_code, looks_like_claude_code
from agent_core.transcripts._cline import (
    cline_task_metadata,
    load_cline,
    looks_like_cline,
    looks_like_cline_metadata,
)
from agent_core.transcripts._codex import load_codex, looks_like_codex
from agent_core.transcripts._openai_chat import load_openai_chat
from agent_core.transcripts._opencode import load_opencode, looks_like_opencode
from agent_core.transcripts._pi import load_pi, looks_like_pi
from agent_core.transcripts._sessions import agent_compactions
from agent_core.transcripts._swe_agent import load_swe_agent
from agent_core.transcripts._transcript import Transcript

__all__ = [
    "FORMATS",
    "FORMAT_NAMES",
    "MAX_JSON_DEPTH",
    "detect_format",
    "json_depth",
    "load_transcript",
    "parse_transcript",
]

#: Deepest nesting of JSON arrays and objects a session file may have. Real sessions stay
#: near ten (a record, its message, its content blocks, a tool's arguments); Python's parser
#: and everything after it recurse once per level, so a deeper file is refused up front.
MAX_JSON_DEPTH = 100
# Escapes go first, on the raw bytes, so that no escaped quote or backslash is left to pair
# up with a real one (dropping bytes first would leave the backslash of a trailing \n beside
# the closing quote). After that only brackets, quotes and line ends matter to the depth:
# the rest is dropped in one pass of bytes.translate.
_ESCAPE = re.compile(rb"\\.", re.DOTALL)
_KEPT = frozenset(b'[]{}"\n')
_DROPPED = bytes(byte for byte in range(256) if byte not in _KEPT)
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}

FORMATS: dict[str, Callable[[Path, str], Transcript]] = {
    "claude_code": load_claude_code,
    "codex": load_codex,
    "pi": load_pi,
    "opencode": load_opencode,
    "cline": load_cline,
    "openai": load_openai_chat,
    "swe_agent": load_swe_agent,
    "aider": load_aider,
}

#: How a user names the agent that wrote each format.
FORMAT_NAMES = {
    "claude_code": "Claude Code",
    "codex": "Codex",
    "pi": "pi",
    "opencode": "opencode",
    "cline": "cline",
    "aider": "aider",
    "swe_agent": "SWE-agent",
    "openai": "OpenAI chat",
}


def load_transcript(path: str | Path, format: str = "auto") -> Transcript:
    """Import a transcript file as langchain messages plus reported usage.

    ``format`` is one of :data:`FORMATS` or ``auto`` (by extension, then by content).
    Malformed files raise ``TranscriptFormatError`` naming the line and what was expected; a
    file with no message it can read says why. A cline conversation picks up the task's
    metadata file beside it.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise TranscriptFormatError(f"not UTF-8 text ({exc.reason})", path=str(path)) from exc
    transcript = parse_transcript(text, path, format)
    if transcript.format == "cline" and (task := cline_task_metadata(path)) is not None:
        transcript.metadata["cline_task"] = task
    return transcript


def parse_transcript(text: str, path: str | Path, format: str = "auto") -> Transcript:
    """:func:`load_transcript` over text already read (an upload); ``path`` is only its name,
    used to pick the importer by extension and in error messages."""
    path = Path(path)
    # Before the format is even guessed: guessing parses the first records.
    depth = json_depth(text) if text.lstrip()[:1] in ("[", "{") else 0
    if depth > MAX_JSON_DEPTH:
        raise TranscriptFormatError(
            f"its JSON is nested {depth:,} levels deep; a session file nests at most "
            f"{MAX_JSON_DEPTH} (arrays and objects inside each other), so this is not one",
            path=str(path),
        )
    if format != "auto" and format not in FORMATS:
        raise TranscriptFormatError(
            f"unknown transcript format {format!r}; expected one of {sorted(FORMATS)} or 'auto'",
            path=str(path),
        )
    chosen = format
    try:
        # Guessing parses records too, so it sits inside the same guard as reading them.
        chosen = detect_format(path, text) if format == "auto" else format
        transcript = FORMATS[chosen](path, text)
        transcript.compactions = agent_compactions(transcript)
    except TranscriptFormatError:
        raise
    except RecursionError as exc:
        # The depth check above should make this unreachable; should a reader still recurse
        # too deep, the user hears why rather than seeing the upload cut off.
        raise TranscriptFormatError(
            f"reading its records went deeper than Python allows (a {chosen} file nesting "
            f"beyond what a session holds)",
            path=str(path),
        ) from exc
    except (
        ValidationError,
        TypeError,
        ValueError,
        KeyError,
        AttributeError,
    ) as exc:
        # A file of the right outline with the wrong insides (a message that is no message):
        # refused in words, like any malformed file, rather than escaping as a crash.
        raise TranscriptFormatError(
            f"its {chosen} records do not hold what such a session holds ({type(exc).__name__})",
            path=str(path),
        ) from exc
    if not transcript.messages:
        note = transcript.skipped_note()
        raise TranscriptFormatError(
            f"no {FORMAT_NAMES.get(chosen, chosen)} message could be read from it"
            + (f" ({note})" if note else " (the file holds no conversation)"),
            path=str(path),
        )
    return transcript


def json_depth(text: str) -> int:
    """How deep arrays and objects nest in ``text`` (JSON, or JSON lines), counted without
    parsing it, in time linear in its length (pure). A JSON string never spans a line, so
    quotes pair up within each line; brackets between a pair are a string's, not nesting."""
    raw = text.encode("utf-8", "surrogatepass")
    reduced = _ESCAPE.sub(b"", raw).translate(None, _DROPPED)
    outside = b"".join(b"".join(line.split(b'"')[::2]) for line in reduced.split(b"\n"))
    return max(0, max(accumulate(map(_STEP.__getitem__, outside)), default=0))


def detect_format(path: Path, text: str) -> str:
    """The importer name for ``path``: extension first, then a look at the content."""
    suffix = path.suffix.lower()
    if suffix == ".traj":
        return "swe_agent"
    # Codex rollouts and pi sessions are .jsonl too: their first record tells them from
    # Claude Code's.
    if looks_like_codex(text):
        return "codex"
    if looks_like_pi(text):
        return "pi"
    if suffix == ".jsonl" or looks_like_claude_code(text):
        return "claude_code"
    if suffix == ".md" or looks_like_aider(text):
        return "aider"
    head = text.lstrip()[:1]
    if head in ("[", "{"):
        if looks_like_cline_metadata(text):
            raise TranscriptFormatError(
                "this is a cline task's metadata file (the files in its context, the models "
                "it used), not a conversation; import the api_conversation_history.json from "
                "the same task folder instead (its metadata is read with it from there)",
                path=str(path),
            )
        if looks_like_opencode(text):
            return "opencode"
        if looks_like_cline(text):
            return "cline"
        # A .traj renamed to .json still has its 'history' list near the top level.
        return "swe_agent" if '"history"' in text[:200000] and '"info"' in text else "openai"
    raise TranscriptFormatError(
        "cannot tell the transcript format; pass format= one of " + ", ".join(sorted(FORMATS)),
        path=str(path),
    )
