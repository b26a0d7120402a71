"""The chat's turns run in the worker's turn process (chat_app.services.runtime.turn_process): when it
dies mid-turn the chat says so, stops showing the turn, and the next message is answered by
a new one. This module serves its own app, whose turn process the test kills. At the
shared server's pace the turn killed still runs seconds after the kill, and the turns after
it (Regenerate, the next message) take no longer: a slower pace only made the test wait."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from chat_app.services.runtime.turn_process import ENDED_MESSAGE
from tests.browser.app_server import AppServer, running_app
from tests.browser.chat_page import (
    activity,
    send,
    timeline,
    user_messages,
    wait_idle,
    wait_interactive,
)
from tests.browser.conftest import SECRET_KEY, SIM_DELAY, answered_here

LONG_TASK = "Write a config parser with tests"


@pytest.fixture(scope="module")
def app_server(chromium_path, tmp_path_factory) -> Iterator[AppServer]:
    env = {"BATON_SIM_WINDOW": "6000", "BATON_SIM_DELAY": SIM_DELAY, "BATON_SECRET_KEY": SECRET_KEY}
    with running_app(tmp_path_factory.mktemp("baton-turn-process"), env) as server:
        yield server


def _turn_processes(server: AppServer) -> list[int]:
    """The live turn processes of the server's process group."""
    group, found = os.getpgid(server.process.pid), []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if (
            fields[0] != "Z"
            and int(fields[2]) == group
            and b"chat_app.services.turn_worker" in command
        ):
            found.append(int(entry.name))
    return found


def test_a_turn_process_killed_mid_turn_is_said_and_the_chat_goes_on(
    owned, app, app_server, screenshot_dir
) -> None:
    # The chat's first answer, a whole plan (about 20 s at the server's pace), is run by
    # this process at once: the turn killed is the next one.
    context, owner = owned
    page = context.new_page()
    page.goto(f"/t/{answered_here(app, owner, 'Plan a CSV parser')}")
    wait_interactive(page)
    page.locator("[data-role=assistant]").last.wait_for()
    wait_idle(page)
    send(page, LONG_TASK)
    page.wait_for_function("() => document.getElementById('stop-button')", timeout=30_000)
    [killed] = _turn_processes(app_server)
    os.kill(killed, signal.SIGKILL)

    page.wait_for_selector(f"[data-sonner-toast] >> text={ENDED_MESSAGE[:40]}")
    wait_idle(page, 30_000)
    assert not page.locator("#stop-button").is_visible()
    page.screenshot(path=str(screenshot_dir / "turn-process-ended.png"))

    # As the message says: Regenerate reply asks again, and the message is answered.
    page.locator("#regenerate").click()
    page.wait_for_function("() => document.getElementById('stop-button')", timeout=30_000)
    wait_idle(page)
    rows = timeline(page)
    asked = rows.index(("user", LONG_TASK))
    assert any(kind == "assistant" for kind, _ in rows[asked + 1 :]), rows[-6:]

    send(page, "carry on")
    wait_idle(page)
    assert activity(page) == "idle"
    assert killed not in _turn_processes(app_server) and len(_turn_processes(app_server)) == 1
    rows = timeline(page)
    carry_on = rows.index(("user", "carry on"))
    assert any(kind == "assistant" for kind, _ in rows[carry_on + 1 :]), rows[-6:]
    # What was typed before the kill is stored: it is there after a reload.
    page.reload()
    page.wait_for_selector("[data-role=user] >> text=carry on")
    assert LONG_TASK in user_messages(page)
