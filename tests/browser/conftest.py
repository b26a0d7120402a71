"""Browser test fixtures: one Baton server per test session, Debian chromium through Playwright.

The server gets a temporary SQLite database and a small simulator context window
(``BATON_SIM_WINDOW``) so that context resets happen within a few turns. Tests only talk
to that server on loopback.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from tests.agent_core.providers.servers import OpenAIServer, Reply
from tests.browser.app_server import AppServer, run_async, running_app
from tests.chat_app.apps import started_with
from tests.chat_app.identities import SIGNING_KEY, mint_token, owner_of

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
DEFAULT_CHROMIUM = "/usr/bin/chromium"

# Small enough that a reset comes after a handful of turns, large enough for a handoff.
SIM_WINDOW = os.environ.get("BATON_TEST_SIM_WINDOW", "6000")
SIM_DELAY = os.environ.get("BATON_TEST_SIM_DELAY", "0.02")
# Seconds between the simulator's words on the server of the modules that act while a turn
# runs: a follow-up turn takes about 8 s, a whole plan about 20 s, a handoff writes for seconds.
SLOW_SIM_DELAY = "0.08"
# The servers sign identities with the tests' key, so a test mints a cookie for a known owner.
SECRET_KEY = SIGNING_KEY
ADMIN_PASSWORD = "browser-tests-admin-password"
# Credentials inside the OpenAI-compatible base URL: no page, toast or log may show them.
PROVIDER_URL_PASSWORD = "sk-url-password-7f3a91"
PROVIDER_URL_QUERY_KEY = "sk-url-query-key-c24e08"
PROVIDER_MODEL = "openai-compatible:fake-model"


class ProviderScript:
    """What the loopback OpenAI-compatible provider answers; tests queue replies here."""

    def __init__(self) -> None:
        self.queued: list = []

    def __call__(self, request: dict, index: int):
        return self.queued.pop(0) if self.queued else Reply(text="The provider answers.")


def _chromium_path() -> str | None:
    configured = os.environ.get("BATON_CHROMIUM")
    if configured:
        return configured if Path(configured).exists() else None
    if Path(DEFAULT_CHROMIUM).exists():
        return DEFAULT_CHROMIUM
    return shutil.which("chromium") or shutil.which("chromium-browser")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = _chromium_path()
    if path is None:
        pytest.skip("chromium not found (install Debian's chromium or set BATON_CHROMIUM)")
    return path


@pytest.fixture(scope="session")
def provider_script() -> ProviderScript:
    return ProviderScript()


@pytest.fixture(scope="session")
def fake_provider(provider_script: ProviderScript) -> Iterator[OpenAIServer]:
    """A loopback OpenAI-compatible server the app reaches through a credentialed URL."""
    with OpenAIServer(provider_script) as server:
        yield server


@pytest.fixture(scope="session")
def app_server(
    chromium_path: str, fake_provider: OpenAIServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[AppServer]:
    workdir = tmp_path_factory.mktemp("baton-app")
    host = fake_provider.url.removeprefix("http://")
    env = {
        "BATON_SIM_WINDOW": SIM_WINDOW,
        "BATON_SIM_DELAY": SIM_DELAY,
        "BATON_SECRET_KEY": SECRET_KEY,
        "BATON_ADMIN_PASSWORD": ADMIN_PASSWORD,
        "BATON_OPENAI_BASE_URL": (
            f"http://baton:{PROVIDER_URL_PASSWORD}@{host}/v1?api_key={PROVIDER_URL_QUERY_KEY}"
        ),
        "BATON_MODEL_RETRIES": "0",
    }
    with running_app(workdir, env) as server:
        yield server


@pytest.fixture(scope="session")
def slow_app_server(
    chromium_path: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[AppServer]:
    """A second server, its simulator slow enough (``SLOW_SIM_DELAY``) for a test to act
    while a turn runs; the modules that need one share it (one backend start, not one each)."""
    env = {
        "BATON_SIM_WINDOW": "6000",
        "BATON_SIM_DELAY": SLOW_SIM_DELAY,
        "BATON_SECRET_KEY": SECRET_KEY,
    }
    with running_app(tmp_path_factory.mktemp("baton-slow"), env) as server:
        yield server


@pytest.fixture(scope="session")
def browser(chromium_path: str) -> Iterator:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser, app_server: AppServer) -> Iterator:
    """A fresh browser profile (so a fresh owner) with the app's URL as base."""
    context = browser.new_context(base_url=app_server.url, viewport={"width": 1100, "height": 820})
    context.set_default_timeout(30_000)
    opened = context.new_page()
    yield opened
    context.close()


@pytest.fixture
def screenshot_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where tests leave screenshots (``BATON_SCREENSHOT_DIR`` to keep them somewhere)."""
    configured = os.environ.get("BATON_SCREENSHOT_DIR")
    if configured:
        path = Path(configured)
        path.mkdir(parents=True, exist_ok=True)
        return path
    return tmp_path_factory.mktemp("screenshots")


@contextlib.contextmanager
def serving(db_url: str, **settings: object) -> Iterator[None]:
    """While it lasts, this process's app runs on the served database (what a test writes
    there, the page shows), with ``settings`` (``sim_window=3000``...), and the server's
    identity key."""
    from chat_app import root
    from chat_app.services.runtime.container import build_app
    from chat_app.settings import Settings

    root.install(build_app(Settings(db_url=db_url, secret_key=SECRET_KEY, **settings)))
    try:
        yield
    finally:
        root.uninstall()


@pytest.fixture
def owned(browser, server_db) -> Iterator[tuple]:
    """A browser context of a known owner on the shared server (1280x800), and that owner.
    Turns this process runs see the server's context window, without its pace."""
    from chat_app import root
    from chat_app.services.security import identity

    served = root.installed()
    assert served is not None
    # The server's window, without its pace.
    root.install(started_with(served, sim_window=int(SIM_WINDOW), sim_delay=0))
    context = browser.new_context(base_url=server_db.url, viewport={"width": 1280, "height": 800})
    context.set_default_timeout(60_000)
    token = mint_token()
    context.add_cookies([{"name": identity.COOKIE_NAME, "value": token, "url": server_db.url}])
    yield context, owner_of(token)
    context.close()


def answer_here(app, owner: str, thread_id: str, text: str) -> None:
    """Send ``text`` on ``owner``'s chat and run its turn to the end in this process, with
    no pace (and, with the ``owned`` fixture, in the server's window). For turns a test
    needs done before its subject, which a browser would wait out at the server's pace."""
    from chat_app.services.conversation.runs import chat as chat_service

    unpaced = started_with(app, sim_delay=0)

    async def answer() -> None:
        async for _ in chat_service.send_message(unpaced, owner, thread_id, text):
            pass

    run_async(answer())


def hand_off_here(app, owner: str, thread_id: str) -> None:
    """``/handoff`` on ``owner``'s chat, run to its end in this process with no pace, as
    :func:`answer_here` runs a turn."""
    from chat_app.services.conversation.runs import chat as chat_service

    unpaced = started_with(app, sim_delay=0)

    async def hand_off() -> None:
        async for _ in chat_service.run_handoff(unpaced, owner, thread_id, None):
            pass

    run_async(hand_off())


def turn_peaks(app, thread_id: str) -> list[float]:
    """The largest share of the window a model call used in each turn of the chat's open
    session, read from the store."""
    from agent_core.strategies import CONTEXT_META

    store = app.store
    peaks: list[float] = []
    for row in store.messages(store.current_session(thread_id).id):
        sample = row.meta.get(CONTEXT_META)
        if row.role == "user":
            peaks.append(0.0)
        elif (
            row.role == "assistant" and peaks and isinstance(sample, dict) and "fraction" in sample
        ):
            peaks[-1] = max(peaks[-1], float(sample["fraction"]))
    return peaks


def answer_here_short_of(
    app, owner: str, thread_id: str, threshold: float, tasks: Iterator[str]
) -> int:
    """Run turns here (:func:`answer_here`, the next text of ``tasks`` each) while, at the
    pace the session's last growing turn grew the context (:func:`turn_peaks`), the turn
    after the next would still stay short of ``threshold`` (a share of the window); returns
    how many ran. What a test builds this way stops before what it watches: by that
    estimate, the turn before the one that reaches the threshold, and that one, are left to
    the browser. A turn that follows a compaction peaks lower than the one before it; the
    pace is then the last rise before it (the summary replaced earlier turns, the turns
    after it add as much as before). Runs nothing while the session has no growth to go by
    (fewer than two turns, none of them higher than the one before)."""
    ran = 0
    for text in tasks:
        peaks = turn_peaks(app, thread_id)
        rises = [later - earlier for earlier, later in itertools.pairwise(peaks) if later > earlier]
        if not rises or peaks[-1] + 2 * rises[-1] >= threshold:
            break
        answer_here(app, owner, thread_id, text)
        ran += 1
    return ran


def rehearsed(app, assistant_id: str | None, tasks: Sequence[str], reached) -> int:
    """How many of ``tasks`` a new chat of the assistant answers before one takes it where
    ``reached(thread_id)`` holds (``len(tasks)``: none does). Found here, on a chat of an
    owner of its own: the offline simulator answers the same messages the same way in every
    chat, so a test's own chat can be brought here to just before that turn."""
    from chat_app.services.conversation.threads import chats as thread_service

    owner = owner_of(mint_token())
    thread_id = thread_service.create_thread(app, owner, "Rehearsal", assistant_id=assistant_id).id
    for answered, text in enumerate(tasks):
        answer_here(app, owner, thread_id, text)
        if reached(thread_id):
            return answered
    return len(tasks)


def answered_here(app, owner: str, task: str, title: str = "New chat") -> str:
    """A new chat of ``owner`` whose first message ``task`` this process answered
    (:func:`answer_here`); returns the chat's id."""
    from chat_app.services.conversation.threads import chats as thread_service

    thread = thread_service.create_thread(app, owner, title)
    answer_here(app, owner, thread.id, task)
    return thread.id


@pytest.fixture
def app():
    """The app on the served database, which the test's server fixture (``server_db``,
    ``tabs``...), requested before it, installed with :func:`serving`."""
    from chat_app import root

    served = root.installed()
    assert served is not None, "request a server fixture (server_db, tabs...) before app"
    return served


@pytest.fixture
def server_db(app_server):
    """The test process reaches the served app's database and signs with its identity key."""
    with serving(f"sqlite:///{app_server.db_path}"):
        yield app_server
