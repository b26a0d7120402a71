"""The lock files hold what pyproject.toml asks for: a dependency added or changed without
``make lock`` fails here, before a fresh machine installs something else."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;\\]+)")


def _pins(lock: str) -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in (ROOT / lock).read_text().splitlines():
        if match := _PIN.match(line):
            pins[canonicalize_name(match.group(1))] = match.group(2)
    return pins


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _asked(group: str | None) -> list[Requirement]:
    project = _project()
    specs = (
        project["project"]["dependencies"] if group is None else project["dependency-groups"][group]
    )
    return [Requirement(spec) for spec in specs]


@pytest.mark.parametrize(
    ("lock", "asked"),
    [
        ("requirements.lock", _asked(None)),
        ("requirements-dev.lock", _asked(None) + _asked("dev")),
    ],
    ids=["runtime", "dev"],
)
def test_each_lock_pins_every_dependency_within_what_pyproject_asks(
    lock: str, asked: list[Requirement]
) -> None:
    pins = _pins(lock)
    missing = [str(r) for r in asked if canonicalize_name(r.name) not in pins]
    outside = [
        f"{r.name}=={pins[canonicalize_name(r.name)]} (asked {r.specifier})"
        for r in asked
        if canonicalize_name(r.name) in pins
        and not r.specifier.contains(pins[canonicalize_name(r.name)], prereleases=True)
    ]
    assert not missing and not outside, f"{lock} is stale, run `make lock`: {missing} {outside}"


def test_the_runtime_lock_has_the_dev_locks_versions() -> None:
    runtime, dev = _pins("requirements.lock"), _pins("requirements-dev.lock")
    differ = {
        name: (version, dev.get(name))
        for name, version in runtime.items()
        if dev.get(name) != version
    }
    assert differ == {}, f"the two locks disagree, run `make lock`: {differ}"


def test_every_locked_version_carries_hashes() -> None:
    """pip's hash-checking mode (``--require-hashes``) refuses a lock line without them."""
    for lock in ("requirements.lock", "requirements-dev.lock"):
        text = (ROOT / lock).read_text()
        blocks = re.split(r"\n(?=[A-Za-z0-9])", text)
        unhashed = [b.split()[0] for b in blocks if _PIN.match(b) and "--hash=sha256:" not in b]
        assert unhashed == [], f"{lock}: no hashes for {unhashed}"
