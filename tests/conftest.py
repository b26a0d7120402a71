"""Shared fixtures. Unit tests never reach the network: sockets to anything but loopback fail."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

_real_connect = socket.socket.connect


def _loopback_only(self: socket.socket, address):  # type: ignore[no-untyped-def]
    host = address[0] if isinstance(address, tuple) else address
    if (
        isinstance(host, str)
        and host not in ("127.0.0.1", "localhost", "::1", "0.0.0.0")
        and not host.startswith("127.")
        and self.family != socket.AF_UNIX
    ):
        raise RuntimeError(f"tests must not reach the network (tried {address!r})")
    return _real_connect(self, address)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket.socket, "connect", _loopback_only)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run the browser tests last: Playwright's sync API keeps an event loop running in the
    main thread for the rest of the session, which asyncio-based tests cannot share."""
    browser_dir = Path(__file__).parent / "browser"
    items.sort(key=lambda item: Path(str(item.fspath)).is_relative_to(browser_dir))


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    """The database a test's app runs on: a fresh SQLite file. A module that wants another
    (PostgreSQL's ``pg_url``, or both) defines a ``db_url`` fixture of its own."""
    return f"sqlite:///{tmp_path}/baton.db"


@pytest.fixture
def settings(db_url: str):
    """The settings a test's app is built from: the defaults on ``db_url``. A module that needs
    another setting overrides this fixture (``Settings(db_url=db_url, ...)``)."""
    from chat_app.settings import Settings

    return Settings(db_url=db_url)


@pytest.fixture
def app(settings):
    """The app services are handed, built from ``settings`` as the web process builds its own
    at start-up, and the process's app (``chat_app.root``) while the test runs, so the pages'
    states reach it too."""
    from chat_app import root
    from chat_app.db.engine import dispose_engine
    from chat_app.services.runtime.container import build_app

    built = root.install(build_app(settings))
    yield built
    root.uninstall()
    dispose_engine(settings.database_url)


# Shared fixtures the specification names ------------------------------------------------------


@pytest.fixture
def mock_handoff_artifact():
    """A handoff as a real session ends: goal, requests, work done and under way, a decision,
    a lesson, files, an open todo and the coverage check."""
    from agent_core import HandoffArtifact
    from agent_core.handoff import FileChange

    return HandoffArtifact(
        session_number=1,
        trigger="auto",
        utilization=0.82,
        model="anthropic:claude-sonnet-4-5",
        goal="Build the auth system and the /users API. Never store plain passwords.",
        user_messages=["[1:9 queued open] also add rate limiting to /login"],
        completed_work=["Commit 3f2a9c1: JWT login and refresh", "Completed todo: Auth models"],
        in_progress=["Todo (2 of 3): Building API endpoints for /users"],
        next_step="“Next I'll add the GET /users/{id} handler.”",
        remaining_tasks=["Frontend components", "Tests"],
        key_decisions=["Using JWT for auth tokens"],
        errors_and_fixes=[
            "`pytest tests/test_auth.py` failed (exit 1; output: “KeyError: 'sub'”); passed "
            "after editing backend/src/routes/auth.py"
        ],
        files_modified=[
            FileChange(path="backend/src/routes/auth.py", verified=True, sessions=[1]),
            FileChange(path="backend/src/models/user.py", verified=True, sessions=[1]),
        ],
        current_state_summary="1 of 3 todos done; 2 files changed; no check failing.",
        open_todos=[
            {"content": "Building API endpoints for /users", "status": "in_progress"},
            {"content": "Tests", "status": "pending"},
        ],
    )


@pytest.fixture
def high_utilization_messages():
    """A factory: ``make(model, utilization=0.9, window=None)`` returns a conversation whose
    tokens, counted for ``model``, fill at least ``utilization`` of its window (or of
    ``window`` when given, to keep big-window models cheap to test)."""
    from langchain_core.messages import AIMessage, HumanMessage

    from agent_core import TokenCounter, model_info

    def make(model: str, utilization: float = 0.9, window: int | None = None) -> list:
        limit = model_info(model, window_override=window).context_window
        counter = TokenCounter(model=model)
        messages: list = [HumanMessage("Refactor the invoice importer and keep its tests green.")]
        turn = 0
        while counter.count_messages(messages) < utilization * limit:
            turn += 1
            chunk = f"Step {turn}: read importer module part {turn}. " + "row, " * 400
            messages += [AIMessage(chunk), HumanMessage(f"continue with part {turn + 1}")]
        return messages

    return make


@pytest.fixture
def context_reset_assistant():
    """An assistant configured to reset (never compact) at the default 80% threshold, on the
    simulator; persist it with ``repo.create_assistant`` where a test needs the database."""
    from chat_app.db.models import AssistantCreate

    return AssistantCreate(
        name="Reset assistant", model="simulator", context_strategy="reset", reset_threshold=0.8
    )
