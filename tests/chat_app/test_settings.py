"""The app's settings as read from the environment at start-up: each variable read with the
rules it always had, and a value that cannot work refused with the variable's name."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from chat_app.db.lease import LEASE_SECONDS
from chat_app.settings import TURN_HOLDER_ENV, read_settings

_VARIABLES = (
    "BATON_ADMIN_PASSWORD",
    "BATON_SHARING",
    "BATON_IMPORT_MAX_MB",
    "BATON_SIM_WINDOW",
    "BATON_ALLOWED_ORIGINS",
    "BATON_REMOTE_IMAGES",
    "BATON_TURN_LEASE",
    TURN_HOLDER_ENV,
    "BATON_SECRET_KEY",
    "BATON_SECRET_FILE",
)


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _VARIABLES:
        monkeypatch.delenv(name, raising=False)


def test_unset_variables_give_the_defaults() -> None:
    settings = read_settings()
    assert settings.admin_password == ""
    assert settings.sharing_enabled is True
    assert settings.import_max_mb == 25
    assert settings.sim_window is None
    assert settings.allowed_origins == ""
    assert settings.remote_images is False
    assert settings.turn_lease == LEASE_SECONDS
    assert settings.turn_holder == ""
    assert settings.secret_key == ""  # the identity key is then the key file's
    assert settings.secret_file == ".baton-secret"


def test_each_variable_reaches_its_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {
        "BATON_ADMIN_PASSWORD": "hunter2",
        "BATON_IMPORT_MAX_MB": "0.5",
        "BATON_SIM_WINDOW": "6000",
        "BATON_ALLOWED_ORIGINS": "https://baton.example.com",
        "BATON_TURN_LEASE": "2",
        TURN_HOLDER_ENV: "a1b2c3",
        "BATON_SECRET_KEY": "s3cret-signing-key",
        "BATON_SECRET_FILE": "/var/lib/baton/secret",
    }.items():
        monkeypatch.setenv(name, value)
    settings = read_settings()
    assert settings.admin_password == "hunter2"
    assert settings.import_max_mb == 0.5
    assert settings.sim_window == 6000
    assert settings.allowed_origins == "https://baton.example.com"
    assert settings.turn_lease == 2
    assert settings.turn_holder == "a1b2c3"
    assert settings.secret_key == "s3cret-signing-key"
    assert settings.secret_file == "/var/lib/baton/secret"
    # The password and the signing key stay out of the settings' repr (which a log line may
    # show).
    assert "hunter2" not in repr(settings)
    assert "s3cret-signing-key" not in repr(settings)


def test_an_empty_key_file_variable_is_the_default_file(monkeypatch: pytest.MonkeyPatch) -> None:
    # Read as it was, "" named the working directory itself, which no key can be read from.
    monkeypatch.setenv("BATON_SECRET_FILE", "")
    monkeypatch.setenv("BATON_SECRET_KEY", "")
    settings = read_settings()
    assert settings.secret_file == ".baton-secret"
    assert settings.secret_key == ""


@pytest.mark.parametrize(
    ("value", "enabled"),
    [("off", False), ("0", False), ("False", False), (" no ", False), ("on", True), ("x", True)],
)
def test_sharing_is_off_only_when_said_so(
    monkeypatch: pytest.MonkeyPatch, value: str, enabled: bool
) -> None:
    monkeypatch.setenv("BATON_SHARING", value)
    assert read_settings().sharing_enabled is enabled


@pytest.mark.parametrize("value", ["lots", "0", "-5", "6.5"])
def test_a_simulator_window_that_is_no_positive_whole_number_is_not_used(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("BATON_SIM_WINDOW", value)
    assert read_settings().sim_window is None


def test_an_import_limit_that_is_no_number_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BATON_IMPORT_MAX_MB", "big")
    assert read_settings().import_max_mb == 25


def test_a_turn_lease_that_is_no_number_is_refused_by_its_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BATON_TURN_LEASE", "fifteen")
    with pytest.raises(ValidationError, match="BATON_TURN_LEASE"):
        read_settings()
