"""With a real model, the agent's commands run for real in the sandbox, and the chat shows
their real output, unlabelled (the simulator's scripted shell is labelled "simulated")."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlmodel import Session

from agent_core import Sandbox
from agent_core.sandbox import sandbox_unavailable_reason
from chat_app.db import repo
from chat_app.db.engine import write_engine
from chat_app.root import root
from chat_app.services import admin as admin_service
from chat_app.services.conversation.threads import chats as thread_service
from chat_app.services.security import identity
from tests.agent_core.providers.servers import Reply
from tests.browser.chat_page import send, wait_idle
from tests.browser.conftest import PROVIDER_MODEL
from tests.chat_app.identities import mint_token, owner_of

TEST_FILE = """import unittest


class Sum(unittest.TestCase):
    def test_adds(self):
        self.assertEqual(sum([{token}, 1]), {token} + 1)


if __name__ == "__main__":
    unittest.main()
"""


def test_a_command_the_model_runs_shows_its_real_output(
    server_db, page, provider_script, screenshot_dir, app
) -> None:
    reason = sandbox_unavailable_reason()
    if reason:
        pytest.skip(f"this host cannot sandbox commands: {reason}")
    # In a thread: Playwright's sync API keeps an event loop running in this one.
    with ThreadPoolExecutor(1) as pool:
        has_pytest = pool.submit(Sandbox().run, {}, "python3 -m pytest --version").result()
    if has_pytest.exit_status != 0:
        pytest.skip(
            "python3 inside the sandbox has no pytest: the app runs as root with its "
            "interpreter under a home other users cannot enter, and the system's python3 "
            "lacks pytest (.ci/run installs python3-pytest)"
        )
    token = uuid.uuid4().int % 10_000  # a value no script could have known in advance
    data = admin_service.validate_form(
        admin_service.AssistantForm(name=f"Real {uuid.uuid4().hex[:6]}", model=PROVIDER_MODEL)
    )
    with Session(write_engine(root().engine)) as db:
        assistant_id = repo.create_assistant(session=db, data=data).id
    cookie = mint_token()
    page.context.add_cookies(
        [{"name": identity.COOKIE_NAME, "value": cookie, "url": server_db.url}]
    )
    thread = thread_service.create_thread(
        app, owner_of(cookie), "Real run", assistant_id=assistant_id
    )
    provider_script.queued[:] = [
        Reply(
            tool_calls=[
                ("write_file", {"path": "test_sum.py", "content": TEST_FILE.format(token=token)})
            ]
        ),
        Reply(
            tool_calls=[
                (
                    "run_command",
                    {"command": f"python3 -m pytest -v test_sum.py; echo made > out-{token}.txt"},
                )
            ]
        ),
        Reply(text="The test ran."),
    ]
    page.goto(f"/t/{thread.id}")
    page.locator("#composer-input").wait_for()
    send(page, "Write a test for sum and run it")
    wait_idle(page)
    page.locator("[data-role=assistant] .baton-markdown", has_text="The test ran.").wait_for()
    row = page.locator(".baton-tool", has_text="python3 -m pytest")
    row.locator("summary").first.click()
    output = row.locator(".baton-tool-result").inner_text()
    assert "test_sum.py::Sum::test_adds PASSED" in output and "1 passed" in output
    assert "[exit status 0]" in output
    assert "simulated" not in row.inner_text().lower()
    # What the command wrote is in the chat's workspace, through the store.
    assert f"out-{token}.txt" in root().store.list_files(thread.id)
    page.screenshot(path=str(screenshot_dir / "real-command.png"), full_page=True)


HOG = "python3 -c \"import time; x = b'a' * 500_000_000; time.sleep(60)\""


def test_commands_past_their_limits_are_stopped_and_the_chat_says_why(
    server_db, page, provider_script, screenshot_dir, app
) -> None:
    # The server's own limits, as shipped: 1 GB for a command's processes together, 256 MB
    # more in the workspace, 1,000 files kept from one command.
    reason = sandbox_unavailable_reason()
    if reason:
        pytest.skip(f"this host cannot sandbox commands: {reason}")
    data = admin_service.validate_form(
        admin_service.AssistantForm(name=f"Limits {uuid.uuid4().hex[:6]}", model=PROVIDER_MODEL)
    )
    with Session(write_engine(root().engine)) as db:
        assistant_id = repo.create_assistant(session=db, data=data).id
    cookie = mint_token()
    page.context.add_cookies(
        [{"name": identity.COOKIE_NAME, "value": cookie, "url": server_db.url}]
    )
    thread = thread_service.create_thread(
        app, owner_of(cookie), "Limits", assistant_id=assistant_id
    )
    commands = {
        "memory": f"{HOG} & {HOG} & {HOG} & wait",
        "disk": "for i in 1 2 3 4 5; do head -c 60000000 /dev/zero > big$i.bin; done; echo wrote",
        "files": "mkdir gen; i=0; while [ $i -lt 1500 ]; do echo $i > gen/f$i.txt; "
        "i=$((i+1)); done; echo made",
    }
    provider_script.queued[:] = [
        *[
            Reply(tool_calls=[("run_command", {"command": command})])
            for command in commands.values()
        ],
        Reply(text="All three were stopped or refused."),
    ]
    page.goto(f"/t/{thread.id}")
    page.locator("#composer-input").wait_for()
    send(page, "Try these three commands")
    wait_idle(page)
    page.locator(
        "[data-role=assistant] .baton-markdown", has_text="All three were stopped or refused."
    ).wait_for()
    shown = {}
    for name, command in commands.items():
        row = page.locator(".baton-tool", has_text=command[:24]).first
        row.locator("summary").first.click()
        shown[name] = row.locator(".baton-tool-result").inner_text()
    assert (
        "[stopped: the command's processes together used more than 1,024 MB of memory, the limit]"
    ) in shown["memory"]
    assert "No space left on device" in shown["disk"]
    assert "[the workspace is full: a command may write at most 256 MB;" in shown["disk"]
    assert (
        "[not kept: the command created or changed 1,500 files; at most 1,000 are "
        "written back from one command, so none was"
    ) in shown["files"]
    assert root().store.list_files(thread.id) == []  # nothing of the three was kept
    page.screenshot(path=str(screenshot_dir / "command-limits.png"), full_page=True)
