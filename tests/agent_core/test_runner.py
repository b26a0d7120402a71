"""The runner's error events: what a user sees when a turn fails outside the provider mapping."""

from __future__ import annotations

import pytest

from agent_core.testing import ScriptedChatModel
from tests.agent_core.runtime_helpers import make_setup, of_type, run

KEY = "sk-runner-BATONLEAKCANARY-0123456789"


async def test_a_failed_turn_shows_no_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    # An exception that skipped the provider mapping (a proxy layer, a tool, a bug) may quote
    # the request URL and the configured key.
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    failure = RuntimeError(f"cannot reach https://user:{KEY}@host/v1 with Bearer {KEY}")
    setup = make_setup(model=ScriptedChatModel([failure]))
    events = await run(setup, "hi")
    [error] = of_type(events, "error")
    assert error["data"]["message"] == "cannot reach https://host/v1 with Bearer [redacted]"
