"""What a user reads when something fails on the server: a plain reason, never a driver's
or a library's raw text (which quotes SQL, parameters, URLs and what the user typed).

:func:`describe_failure` is applied wherever an exception reaches a page: the chat's stream,
the turn process's runs, the replay, and Reflex's handler for any event that raises
(:mod:`chat_app.states.failure_toast`).
"""

from __future__ import annotations

from agent_core import BatonError, known_secrets, redact_text
from chat_app.db.failures import database_failure

__all__ = ["describe_failure"]


def describe_failure(exc: BaseException) -> str:
    """``exc`` as one plain sentence or two: a database failure in words (full, read-only,
    gone, unreachable, busy); Baton's own errors as they are written (for users, secrets
    redacted); anything else by its kind only, the details being in the server's log."""
    failure = database_failure(exc)
    if failure is not None:
        return failure.text()
    if isinstance(exc, BatonError):
        text = redact_text(str(exc), known_secrets()).strip()
        if text:
            return text.splitlines()[0][:300]
    return (
        f"An unexpected error ({type(exc).__name__}) stopped this; the server's log has "
        "the details."
    )
