"""The identity cookie's signing key: handed in by the App, made from its settings."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from chat_app.services.security import identity
from chat_app.services.security.identity import UnusableSigningKey, signing_key
from chat_app.settings import Settings


@pytest.fixture
def key_file(tmp_path: Path) -> Path:
    return tmp_path / "secret"


@pytest.fixture
def settings(db_url: str, key_file: Path) -> Settings:
    """An app with no configured key: its key is the key file's."""
    return Settings(db_url=db_url, secret_key="", secret_file=str(key_file))


def test_a_configured_key_signs_and_no_file_is_made(key_file: Path) -> None:
    settings = Settings(secret_key="configured-key", secret_file=str(key_file))
    assert signing_key(settings) == b"configured-key"
    assert not key_file.exists()


def test_without_a_key_one_is_made_once_kept_private_and_read_again(
    settings: Settings, key_file: Path
) -> None:
    key = signing_key(settings)
    assert len(key) == 64
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert signing_key(settings) == key  # as a restarted process reads it


def test_an_empty_key_file_is_refused_rather_than_signed_with(
    settings: Settings, key_file: Path
) -> None:
    key_file.write_text("\n")
    with pytest.raises(UnusableSigningKey, match=str(key_file)):
        signing_key(settings)


def test_the_app_finds_its_key_when_first_asked_and_its_cookies_survive_a_restart(
    app, settings: Settings, key_file: Path
) -> None:
    from chat_app.services.runtime.container import build_app

    assert not key_file.exists()  # a process that mints nothing makes no file
    token = identity.mint_token(app.identity_key)
    owner = identity.owner_from_token(token, app.identity_key)
    assert owner is not None
    restarted = build_app(settings)
    assert identity.owner_from_token(token, restarted.identity_key) == owner


def test_a_token_signed_with_another_key_names_no_owner() -> None:
    token = identity.mint_token(b"another-app")
    assert identity.owner_from_token(token, b"this-app") is None
    assert identity.owner_from_cookie_header(f"baton_id={token}", b"this-app") is None
