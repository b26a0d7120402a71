"""Replaying a recorded session through the app's pipeline, and its report."""

from agent_core.replay._agent_cuts import AgentCut, cuts_at_agent_compactions
from agent_core.replay._events import (
    ReplayCompaction,
    ReplayEvent,
    ReplayMask,
    ReplayReset,
    ReplaySummary,
    parse_replay_event,
)
from agent_core.replay._run import ReplayStep, replay_transcript
from agent_core.replay._run import replay as replay_file

__all__ = [
    "AgentCut",
    "ReplayCompaction",
    "ReplayEvent",
    "ReplayMask",
    "ReplayReset",
    "ReplayStep",
    "ReplaySummary",
    "cuts_at_agent_compactions",
    "parse_replay_event",
    "replay_file",
    "replay_transcript",
]
