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
def app():
    """The process's backend (``runtime.backend()``), which services are handed, on the
    database the test's own fixtures chose: request it after them."""
    from chat_app.services.runtime import runtime

    return runtime.backend()
