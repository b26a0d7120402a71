"""Transcript importers: OpenAI chat JSON, Claude Code JSONL, Codex CLI rollouts, SWE-agent
``.traj``, aider history."""

from agent_core.transcripts.loader import FORMATS, detect_format, load_transcript, parse_transcript
from agent_core.transcripts.sessions import ImportedSession, OriginalCompaction, split_sessions
from agent_core.transcripts.transcript import Transcript, UsagePoint

__all__ = [
    "FORMATS",
    "ImportedSession",
    "OriginalCompaction",
    "Transcript",
    "UsagePoint",
    "detect_format",
    "load_transcript",
    "parse_transcript",
    "split_sessions",
]
