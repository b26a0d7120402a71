"""The sandbox tests run the real bubblewrap; without it (or user namespaces) they skip."""

from __future__ import annotations

import pytest

from agent_core.sandbox import sandbox_unavailable_reason


@pytest.fixture
def sandboxed() -> None:
    reason = sandbox_unavailable_reason()
    if reason is not None:
        pytest.skip(f"no sandbox on this host: {reason}")
