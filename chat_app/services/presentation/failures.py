"""What a user reads when something fails on the server: a plain reason, never a driver's
or a library's raw text (which quotes SQL, parameters, URLs and what the user typed).

:func:`describe_failure` is applied wherever an exception reaches a page: the chat's stream,
the turn process's runs, the replay, and Reflex's handler for any event that raises
(:mod:`chat_app.states.failure_toast`).
"""

from __future__ import annotations

from agent_core import BatonError, redact_text
from agent_core.redaction import known_secrets
from chat_app.db.failures import database_failure

__all__ = ["describe_failure", "REDIS_CUT", "STATE_LOCK_EXPIRED"]

REDIS_CUT = (
    "The server lost its connection to Redis, where open pages keep their state: nothing "
    "was sent or changed. Try again in a moment; a message stays in the composer and is "
    "sent again once the connection is back."
)


STATE_LOCK_EXPIRED = (
    "The server was too busy to finish this in time (the page's state lock in Redis "
    "expired). A message you sent is sent again unless it shows as stored; reload the page "
    "if it looks out of date."
)


# redis-py's exceptions for a server it cannot reach (or that is still loading its data).
_REDIS_CUT_ERRORS = frozenset({"ConnectionError", "TimeoutError", "BusyLoadingError"})


def _redis_failure(exc: BaseException) -> bool:
    """Whether ``exc`` (or what it was raised from) is Redis's client failing to reach it."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        kind = type(current)
        if kind.__module__.startswith("redis") and kind.__name__ in _REDIS_CUT_ERRORS:
            return True
        current = current.__cause__ or current.__context__
    return False


def describe_failure(exc: BaseException) -> str:
    """``exc`` as one plain sentence or two: a database failure in words (full, read-only,
    gone, unreachable, busy); Baton's own errors as they are written (for users, secrets
    redacted); anything else by its kind only, the details being in the server's log."""
    failure = database_failure(exc)
    if failure is not None:
        return failure.text()
    if _redis_failure(exc):
        return REDIS_CUT
    # Reflex's (its class is not imported here: services never import Reflex).
    if type(exc).__name__ == "LockExpiredError" and type(exc).__module__.startswith("reflex"):
        return STATE_LOCK_EXPIRED
    if isinstance(exc, BatonError):
        text = redact_text(str(exc), known_secrets()).strip()
        if text:
            return text.splitlines()[0][:300]
    return (
        f"An unexpected error ({type(exc).__name__}) stopped this; the server's log has "
        "the details."
    )
