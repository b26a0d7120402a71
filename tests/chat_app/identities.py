"""Identity cookies as a test's app or server mints them: signed with the tests' key."""

from __future__ import annotations

from chat_app.services.security import identity

#: The identity key of the test apps that check identities (``Settings(secret_key=...)``) and
#: of the browser tests' servers (their ``BATON_SECRET_KEY``).
SIGNING_KEY = "tests-identity-signing-key"
KEY = SIGNING_KEY.encode()


def mint_token() -> str:
    """A new identity cookie's value, as a test app or server would mint it."""
    return identity.mint_token(KEY)


def owner_of(token: str) -> str:
    """The owner id of a cookie minted with the tests' key."""
    owner = identity.owner_from_token(token, KEY)
    assert owner is not None, "not an identity signed with the tests' key"
    return owner
