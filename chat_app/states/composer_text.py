"""What the composer's empty box says, by what the chat is doing (``ChatState.activity``).

Each says what happens to a message sent now: while the agent works it is queued and
delivered at the agent's next step (the next model call of the running turn,
``SessionCoordinator.deliver_pending``), not after the turn; during a reset or a handoff it
opens the new session.
"""

from __future__ import annotations

__all__ = ["composer_placeholder"]

_PLACEHOLDERS = {
    "handoff": "Writing the handoff… messages sent now are answered in the new session",
    "resetting": "Resetting context… messages sent now are answered in the new session",
    "sending": "Working… messages sent now reach the agent at its next step",
    "idle": "Message Baton (Enter to send, Shift+Enter for a new line)",
}


def composer_placeholder(activity: str) -> str:
    """The placeholder for ``activity`` (idle | sending | resetting | handoff)."""
    return _PLACEHOLDERS.get(activity, _PLACEHOLDERS["idle"])
