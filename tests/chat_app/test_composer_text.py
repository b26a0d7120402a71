"""What the composer's empty box says a message sent now will do."""

from __future__ import annotations

from chat_app.states.composer_text import composer_placeholder


def test_while_the_agent_works_a_message_reaches_it_at_its_next_step() -> None:
    # Queued messages are delivered at the next model call of the running turn
    # (SessionCoordinator.deliver_pending), not after the turn.
    text = composer_placeholder("sending")
    assert "next step" in text and "after this turn" not in text


def test_during_a_reset_or_handoff_a_message_opens_the_new_session() -> None:
    assert "new session" in composer_placeholder("resetting")
    assert "new session" in composer_placeholder("handoff")
    assert composer_placeholder("idle").startswith("Message Baton")
