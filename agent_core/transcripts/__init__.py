"""Transcript importers: Claude Code, Codex CLI, pi, opencode, cline, OpenAI chat JSON,
SWE-agent ``.traj``, aider history."""

from agent_core.transcripts.loader import (
    FORMAT_NAMES,
    FORMATS,
    detect_format,
    load_transcript,
    parse_transcript,
)
from agent_core.transcripts.sessions import (
    ImportedSession,
    OriginalCompaction,
    agent_compactions,
    split_sessions,
)
from agent_core.transcripts.transcript import Transcript, UsagePoint

__all__ = [
    "FORMATS",
    "FORMAT_NAMES",
    "ImportedSession",
    "OriginalCompaction",
    "Transcript",
    "UsagePoint",
    "agent_compactions",
    "detect_format",
    "load_transcript",
    "parse_transcript",
    "split_sessions",
]
