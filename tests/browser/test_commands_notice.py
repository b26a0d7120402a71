"""A chat whose real model cannot run commands on this host says so above the composer."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from sqlmodel import Session

from chat_app.db import repo
from chat_app.db.engine import write_engine
from chat_app.root import root
from chat_app.services import admin as admin_service
from chat_app.services.conversation.threads import chats as thread_service
from chat_app.services.security import identity
from tests.browser.app_server import AppServer, running_app
from tests.browser.conftest import PROVIDER_MODEL, SECRET_KEY, serving
from tests.chat_app.identities import mint_token, owner_of


@pytest.fixture(scope="module")
def sandbox_off_server(
    chromium_path: str, fake_provider, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[AppServer]:
    """The app on a host that cannot sandbox (``BATON_SANDBOX=off`` says so)."""
    host = fake_provider.url.removeprefix("http://")
    env = {
        "BATON_SANDBOX": "off",
        "BATON_SECRET_KEY": SECRET_KEY,
        "BATON_OPENAI_BASE_URL": f"http://{host}/v1?api_key=test-key",
    }
    with running_app(tmp_path_factory.mktemp("baton-sandbox-off"), env) as server:
        yield server


def _chat(app, owner: str, model: str) -> str:
    data = admin_service.validate_form(
        admin_service.AssistantForm(name=f"{model} {uuid.uuid4().hex[:6]}", model=model)
    )
    with Session(write_engine(root().engine)) as db:
        assistant_id = repo.create_assistant(session=db, data=data).id
    return thread_service.create_thread(app, owner, "Commands", assistant_id=assistant_id).id


@pytest.fixture
def sandbox_off_db(sandbox_off_server: AppServer):
    with serving(f"sqlite:///{sandbox_off_server.db_path}"):
        yield sandbox_off_server


@pytest.mark.parametrize("width", [1280, 390])
def test_the_chat_says_its_assistant_cannot_run_commands_here(
    sandbox_off_db, browser, monkeypatch, screenshot_dir, width: int
) -> None:
    monkeypatch.setenv("BATON_SANDBOX", "off")
    app = root()
    token = mint_token()
    owner = owner_of(token)
    real, simulated = _chat(app, owner, PROVIDER_MODEL), _chat(app, owner, "simulator")

    context = browser.new_context(
        base_url=sandbox_off_db.url, viewport={"width": width, "height": 820}
    )
    try:
        context.add_cookies(
            [{"name": identity.COOKIE_NAME, "value": token, "url": sandbox_off_db.url}]
        )
        page = context.new_page()
        page.goto(f"/t/{real}")
        notice = page.locator("#commands-notice")
        notice.wait_for()
        assert "cannot run commands here" in notice.inner_text()
        assert "BATON_SANDBOX" in notice.inner_text()
        page.screenshot(path=str(screenshot_dir / f"commands-notice-{width}.png"))

        page.goto(f"/t/{simulated}")
        page.locator("#composer-input").wait_for()
        page.wait_for_timeout(500)
        assert page.locator("#commands-notice").count() == 0
    finally:
        context.close()
