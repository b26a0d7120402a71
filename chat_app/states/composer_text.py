"""What the composer's empty box says, by what the chat is doing (``ChatState.activity``).

Each says what happens to a message sent now: while the agent works it is queued and
delivered at the agent's next step (the next model call of the running turn,
``SessionCoordinator.deliver_pending``), not after the turn; during a reset or a handoff it
opens the new session.
"""

from __future__ import annotations

__all__ = ["composer_placeholder"]

# The timeline's divider already says "Resetting context…": the box says only what happens
# to a message. No key hints: a phone's keyboard has no Shift+Enter, and the box is narrow
# there (the keys are in the shortcuts help).
_PLACEHOLDERS = {
    "handoff": "Writing the handoff… messages sent now are answered in the new session",
    "resetting": "Messages sent now are answered in the new session",
    "sending": "Working… messages sent now reach the agent at its next step",
    "idle": "Message Baton",
}


def composer_placeholder(activity: str) -> str:
    """The placeholder for ``activity`` (idle | sending | resetting | handoff)."""
    return _PLACEHOLDERS.get(activity, _PLACEHOLDERS["idle"])
