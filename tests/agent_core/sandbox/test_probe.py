"""The sandbox probe answers wherever it is first asked, event loop or not."""

from __future__ import annotations

import asyncio

from agent_core.sandbox import sandbox_unavailable_reason
from agent_core.tools import command_mode


def test_the_probe_answers_when_first_asked_on_a_running_event_loop() -> None:
    # The admin page's handlers run on the server's event loop; the probe used to call
    # asyncio.run() there and fail the page for any assistant with a real model.
    known = sandbox_unavailable_reason()
    sandbox_unavailable_reason.cache_clear()

    async def ask() -> str | None:
        return sandbox_unavailable_reason()

    try:
        assert asyncio.run(ask()) == known
    finally:
        sandbox_unavailable_reason.cache_clear()


def test_the_hosts_switch_turns_real_commands_off_whatever_the_host_can_do() -> None:
    reason = sandbox_unavailable_reason(False)
    assert reason == "commands are turned off (BATON_SANDBOX=off)"
    assert command_mode(is_simulator=False, commands_enabled=False) == "off"
    assert command_mode(is_simulator=True, commands_enabled=False) == "simulated"
