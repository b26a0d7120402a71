"""Transcript importers: Claude Code, Codex CLI, pi, opencode, cline, OpenAI chat JSON,
SWE-agent ``.traj``, aider history."""

from agent_core.transcripts._export import transcript_to_openai
from agent_core.transcripts._loader import (
    FORMAT_NAMES,
    FORMATS,
    detect_format,
    load_transcript,
    parse_transcript,
)
from agent_core.transcripts._sessions import (
    ImportedSession,
    OriginalCompaction,
    agent_compactions,
    split_sessions,
)
from agent_core.transcripts._transcript import NOT_SENT, Transcript, UsagePoint

__all__ = [
    "FORMATS",
    "FORMAT_NAMES",
    "NOT_SENT",
    "ImportedSession",
    "OriginalCompaction",
    "Transcript",
    "UsagePoint",
    "agent_compactions",
    "detect_format",
    "load_transcript",
    "parse_transcript",
    "split_sessions",
    "transcript_to_openai",
]
