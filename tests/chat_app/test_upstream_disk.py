"""The disk state manager looks for expired tabs' files once a minute, not every write pass."""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from chat_app.upstream import purge_disk_states_less_often
from chat_app.upstream.reflex import DISK_PURGE_EVERY


def _state_file(directory: Path, name: str, age: float) -> Path:
    path = directory / f"{name}.pkl"
    path.write_bytes(b"state")
    at = time.time() - age
    os.utime(path, (at, at))
    return path


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    from reflex.istate.manager.disk import StateManagerDisk

    monkeypatch.setenv("REFLEX_STATES_WORKDIR", str(tmp_path))
    return SimpleNamespace(_state_manager=StateManagerDisk(token_expiration=600))


def test_expired_files_are_looked_for_once_a_minute(app: SimpleNamespace, tmp_path: Path) -> None:
    assert purge_disk_states_less_often(app)
    manager = app._state_manager
    assert manager.token_expiration == 600  # the settings of the manager it replaced
    expired = _state_file(tmp_path, "expired", age=601)
    fresh = _state_file(tmp_path, "fresh", age=10)

    manager._purge_expired_states()  # a write pass right after start-up's purge
    assert expired.exists()

    manager._purged_at -= DISK_PURGE_EVERY  # a minute later
    manager._purge_expired_states()
    assert not expired.exists()
    assert fresh.exists()


def test_a_second_call_keeps_the_manager_and_redis_keeps_its_own(app: SimpleNamespace) -> None:
    assert purge_disk_states_less_often(app)
    replaced = app._state_manager
    assert purge_disk_states_less_often(app)
    assert app._state_manager is replaced
    elsewhere = SimpleNamespace(_state_manager=object())
    assert not purge_disk_states_less_often(elsewhere)
