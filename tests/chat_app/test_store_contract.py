# ruff: noqa: F403, F401, F811  (the suite's tests and fixtures are imported to run here)
"""The SessionStore contract (``tests/agent_core/storage/store_contract.py``) on SqlStore, over
SQLite and PostgreSQL: indistinguishable from the in-memory reference through the port. And
what only SqlStore has: its fault points inside a reset."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agent_core import NewMessage
from chat_app.db.engine import get_engine
from chat_app.db.store import SqlStore
from tests.agent_core.storage.store_contract import *
from tests.agent_core.storage.store_contract import (
    Backend,
    check_a_failed_reset_leaves_nothing,
    reset,
)
from tests.chat_app.db.backends import create_thread, migrated_sqlite, pg_url, plant_legacy_file


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "sqlite":
        engine = get_engine(migrated_sqlite(tmp_path))
    else:
        engine = get_engine(request.getfixturevalue("pg_url"))
    store = SqlStore(engine)
    yield Backend(
        request.param,
        store,
        lambda: create_thread(engine),
        lambda thread, path, content: plant_legacy_file(store, thread, path, content),
    )


def _fault_at(step: str) -> Callable[[str], None]:
    def hook(current: str) -> None:
        if current == step:
            raise RuntimeError(f"injected failure at {step}")

    return hook


@pytest.mark.parametrize("step", ["boundary_written", "session_opened", "pending_delivered"])
def test_commit_reset_failing_at_a_step_leaves_nothing_half_written(
    backend: Backend, step: str
) -> None:
    def failing_reset(thread: str, old: str) -> object:
        backend.store._fault_hook = _fault_at(step)
        try:
            return reset(backend.store, thread, old)
        finally:
            backend.store._fault_hook = None

    check_a_failed_reset_leaves_nothing(backend, failing_reset)
