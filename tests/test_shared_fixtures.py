"""The shared fixtures the specification names behave as their names promise."""

from __future__ import annotations

import pytest

from agent_core import HandoffArtifact, make_policy, plan
from agent_core.accounting import ContextEstimator


def test_the_mock_handoff_artifact_round_trips_its_markdown(mock_handoff_artifact) -> None:
    markdown = mock_handoff_artifact.to_markdown()
    assert HandoffArtifact.from_markdown(markdown) == mock_handoff_artifact.shown()
    assert "Using JWT for auth tokens" in markdown


@pytest.mark.parametrize(
    ("model", "window"),
    [("anthropic:claude-sonnet-4-5", 8000), ("openai:gpt-4o", 6000), ("simulator", None)],
)
def test_high_utilization_messages_cross_the_reset_threshold(
    high_utilization_messages, context_reset_assistant, model: str, window: int | None
) -> None:
    messages = high_utilization_messages(model, 0.85, window)
    estimate = ContextEstimator(model, window_override=window).estimate(messages)
    assert estimate.fraction >= 0.85
    a = context_reset_assistant
    policy = make_policy(context_strategy=a.context_strategy, reset_threshold=a.reset_threshold)
    assert plan(estimate.fraction, policy, model_default="compact").action == "reset"
