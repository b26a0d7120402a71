# ruff: noqa: F403, F401  (the suite's tests and fixtures are imported to run here)
"""The SessionStore contract (``store_contract``) on the reference store, ``InMemoryStore``."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from agent_core import InMemoryStore
from tests.agent_core.storage.store_contract import *
from tests.agent_core.storage.store_contract import Backend


@pytest.fixture
def backend() -> Iterator[Backend]:
    store = InMemoryStore()

    def plant_file(thread: str, path: str, content: str) -> None:
        store._files[thread][path] = content

    yield Backend("memory", store, lambda: uuid.uuid4().hex, plant_file)
