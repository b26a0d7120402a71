"""Origins, the page policy and state tokens: the pure decisions behind the web middlewares."""

from __future__ import annotations

import pytest

from chat_app.services.security.web_security import (
    allowed_origins,
    content_security_policy,
    host_allowed,
    origin_allowed,
    remote_images_allowed,
    state_token,
)
from chat_app.settings import Settings, read_settings

KEY = b"web-security-tests"


@pytest.mark.parametrize(
    ("origin", "host", "expected"),
    [
        ("http://localhost:3000", "localhost:3000", True),
        ("http://LOCALHOST:3000", "localhost:3000", True),
        ("https://baton.example.com", "baton.example.com", True),  # default port on both sides
        ("https://baton.example.com", "baton.example.com:443", True),
        ("http://localhost:8080", "localhost:3000", False),  # another port of the host: same site
        ("http://evil.example.com:3000", "localhost:3000", False),
        ("https://chat.example.com", "baton.example.com", False),  # a sibling subdomain
        ("null", "localhost:3000", False),  # sandboxed frames and data: pages
        ("", "localhost:3000", False),
    ],
)
def test_without_configured_origins_only_the_requests_own_host_is_allowed(origin, host, expected):
    assert origin_allowed(origin, host=host, scheme="http") is expected


def test_configured_origins_are_matched_exactly():
    allowed = allowed_origins(
        Settings(allowed_origins="https://baton.example.com, http://10.0.0.5:3000")
    )
    assert allowed == ["https://baton.example.com:443", "http://10.0.0.5:3000"]
    assert origin_allowed(
        "https://baton.example.com", host="internal:3000", scheme="http", allowed=allowed
    )
    assert not origin_allowed(
        "http://baton.example.com", host="baton.example.com", scheme="http", allowed=allowed
    )
    assert host_allowed("baton.example.com", allowed=allowed)
    assert host_allowed("10.0.0.5:3000", allowed=allowed)
    assert not host_allowed("rebound.evil.example", allowed=allowed)  # DNS rebinding
    assert host_allowed("anything:3000", allowed=[])


def test_the_policy_allows_only_the_pages_own_scripts_and_origin():
    policy = content_security_policy(["abc=", "abc=", "def="], remote_images=False)
    directives = dict(d.split(" ", 1) for d in policy.split("; "))
    assert directives["script-src"] == "'self' 'unsafe-eval' 'sha256-abc=' 'sha256-def='"
    assert "'unsafe-inline'" not in directives["script-src"]
    assert directives["frame-src"] == "'none'"
    assert directives["object-src"] == "'none'"
    assert directives["base-uri"] == "'none'"
    assert directives["form-action"] == "'self'"
    assert directives["connect-src"] == "'self'"
    assert directives["img-src"] == "'self' data: blob:"
    assert (
        "https:"
        in dict(
            d.split(" ", 1) for d in content_security_policy([], remote_images=True).split("; ")
        )["img-src"]
    )


def test_remote_images_are_off_unless_enabled(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("BATON_REMOTE_IMAGES", raising=False)
    assert not remote_images_allowed(read_settings())
    for value in ("on", "1", "true", "YES"):
        monkeypatch.setenv("BATON_REMOTE_IMAGES", value)
        assert remote_images_allowed(read_settings())
    for value in ("off", "maybe"):
        monkeypatch.setenv("BATON_REMOTE_IMAGES", value)
        assert not remote_images_allowed(read_settings())


def test_a_state_token_is_bound_to_the_identity_that_presents_it():
    token = "5b1c4c2e-1111-4222-8333-444455556666"
    mine = state_token("a" * 32, token, KEY)
    assert mine == state_token("a" * 32, token, KEY)  # the same tab gets its state back
    assert mine != state_token("b" * 32, token, KEY)  # another browser presenting it does not
    assert mine != token
    assert state_token("a" * 32, "another-tab", KEY) != mine
    assert state_token("a" * 32, token, b"another-key") != mine  # nor another app's key
