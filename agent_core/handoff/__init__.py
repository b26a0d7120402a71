"""The handoff: what one session leaves for the next after a context reset.

The artifact and its markdown/JSON forms, its generation (asking a model, grounding, budget),
the facts the tools prove, and the request handed to the next session. The modules are
private; the engine's own modules import one another, never this face."""

from agent_core.handoff._artifact import (
    FileChange,
    HandoffArtifact,
    handoff_context_message,
    handoff_filename,
)
from agent_core.handoff._facts import GroundedFacts, extract_facts
from agent_core.handoff._generation import HandoffResult, generate_handoff
from agent_core.handoff._inventory import take_inventory
from agent_core.handoff._omitted import named_before, named_commits, named_places
from agent_core.handoff._request import appended_request, transcript_request
from agent_core.handoff._state_line import shown_state as handoff_state

__all__ = [
    "FileChange",
    "GroundedFacts",
    "HandoffArtifact",
    "HandoffResult",
    "appended_request",
    "extract_facts",
    "generate_handoff",
    "handoff_context_message",
    "handoff_filename",
    "handoff_state",
    "named_before",
    "named_commits",
    "named_places",
    "take_inventory",
    "transcript_request",
]
