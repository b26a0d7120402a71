"""The secrets a process knows of: those of an environment handed in, and those it was told."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ._urls import MIN_SECRET_LENGTH, longest_first, url_secrets

__all__ = [
    "SECRET_ENV_VARS",
    "forget_known_secrets",
    "known_secrets",
    "remember_secrets",
]

SECRET_ENV_VARS = (
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "OLLAMA_API_KEY",
    "BATON_ADMIN_PASSWORD",
    "BATON_SECRET_KEY",
)


def _secrets_in(env: Mapping[str, str]) -> list[str]:
    found = [env.get(name, "") for name in SECRET_ENV_VARS]
    for name, value in env.items():
        if name.endswith("_URL") and "://" in value:
            found += url_secrets(value)
    return longest_first(found)


# The secrets the process was told of: those of its settings, handed over by whoever started
# it (the app's composition root), and credentials read from the database at run time (an MCP
# server's environment variables and headers). The engine reads no environment itself.
_remembered: set[str] = set()


def remember_secrets(values: Iterable[str]) -> None:
    """Treat ``values`` as secrets from now on in this process: :func:`known_secrets` (and so
    every log record) includes them. For the credentials of the process's settings, at
    start-up, and for credentials read from the database at run time."""
    fresh = {v for v in values if len(v) >= MIN_SECRET_LENGTH} - _remembered
    if fresh:
        _remembered.update(fresh)


def known_secrets(env: Mapping[str, str] | None = None) -> list[str]:
    """The credential values configured in ``env``: the key variables (:data:`SECRET_ENV_VARS`)
    and what any ``*_URL`` variable carries in its userinfo or secret query parameters (pure).

    Without ``env``, the secrets the process was told of (:func:`remember_secrets`), longest
    first: what the log filter and the user-visible error texts hide.
    """
    if env is not None:
        return _secrets_in(env)
    return longest_first(_remembered)


def forget_known_secrets() -> None:
    """Forget the secrets :func:`remember_secrets` was told of (a test's, once it ends)."""
    _remembered.clear()
