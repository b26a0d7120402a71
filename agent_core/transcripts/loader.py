"""``load_transcript``: pick the importer by name, extension or content, then parse."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agent_core.errors import TranscriptFormatError
from agent_core.transcripts.aider import load_aider, looks_like_aider
from agent_core.transcripts.claude_code import load_claude_code, looks_like_claude_code
from agent_core.transcripts.codex import load_codex, looks_like_codex
from agent_core.transcripts.openai_chat import load_openai_chat
from agent_core.transcripts.swe_agent import load_swe_agent
from agent_core.transcripts.transcript import Transcript

__all__ = ["FORMATS", "detect_format", "load_transcript", "parse_transcript"]

FORMATS: dict[str, Callable[[Path, str], Transcript]] = {
    "claude_code": load_claude_code,
    "codex": load_codex,
    "openai": load_openai_chat,
    "swe_agent": load_swe_agent,
    "aider": load_aider,
}


def load_transcript(path: str | Path, format: str = "auto") -> Transcript:
    """Import a transcript file as langchain messages plus reported usage.

    ``format`` is one of ``claude_code``, ``codex``, ``openai``, ``swe_agent``, ``aider`` or
    ``auto`` (by extension, then by content). Malformed files raise ``TranscriptFormatError`` naming
    the line and what was expected.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise TranscriptFormatError(f"not UTF-8 text ({exc.reason})", path=str(path)) from exc
    return parse_transcript(text, path, format)


def parse_transcript(text: str, path: str | Path, format: str = "auto") -> Transcript:
    """:func:`load_transcript` over text already read (an upload); ``path`` is only its name,
    used to pick the importer by extension and in error messages."""
    path = Path(path)
    chosen = detect_format(path, text) if format == "auto" else format
    if chosen not in FORMATS:
        raise TranscriptFormatError(
            f"unknown transcript format {format!r}; expected one of {sorted(FORMATS)} or 'auto'",
            path=str(path),
        )
    return FORMATS[chosen](path, text)


def detect_format(path: Path, text: str) -> str:
    """The importer name for ``path``: extension first, then a look at the content."""
    suffix = path.suffix.lower()
    if suffix == ".traj":
        return "swe_agent"
    # Codex rollouts are .jsonl too: their record envelope tells them from Claude Code's.
    if looks_like_codex(text):
        return "codex"
    if suffix == ".jsonl" or looks_like_claude_code(text):
        return "claude_code"
    if suffix == ".md" or looks_like_aider(text):
        return "aider"
    head = text.lstrip()[:1]
    if head in ("[", "{"):
        # A .traj renamed to .json still has its 'history' list near the top level.
        return "swe_agent" if '"history"' in text[:200000] and '"info"' in text else "openai"
    raise TranscriptFormatError(
        "cannot tell the transcript format; pass format= one of " + ", ".join(sorted(FORMATS)),
        path=str(path),
    )
