"""The handoff the app writes at a reset, for tests that read one: facts-only without a model,
else model-written, counted in words."""

from __future__ import annotations

import asyncio

from agent_core.handoff._artifact import HandoffArtifact
from agent_core.handoff._generation import generate_handoff


def written(messages, *, model=None, previous=None, number: int = 1) -> HandoffArtifact:
    return asyncio.run(
        generate_handoff(
            model,
            list(messages),
            session_number=number,
            trigger="auto",
            utilization=0.8,
            model_name="m",
            previous=previous,
            count_tokens=lambda text: len(text.split()),
        )
    ).artifact
