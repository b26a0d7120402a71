"""Replaying a recorded session through the app's pipeline, and its report."""

from agent_core.replay._agent_cuts import AgentCut, cuts_at_agent_compactions
from agent_core.replay._run import ReplayStep, replay_transcript
from agent_core.replay._run import replay as replay_file

__all__ = [
    "AgentCut",
    "ReplayStep",
    "cuts_at_agent_compactions",
    "replay_file",
    "replay_transcript",
]
