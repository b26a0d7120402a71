"""Fixtures shared by the engine's tests."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from agent_core.redaction import forget_known_secrets, install_log_redaction


@pytest.fixture
def log_redaction() -> Iterator[None]:
    """Log redaction installed for one test, as the app installs it at start; the previous
    record factory comes back after."""
    previous = logging.getLogRecordFactory()
    forget_known_secrets()
    install_log_redaction()
    yield
    logging.setLogRecordFactory(previous)
    forget_known_secrets()
