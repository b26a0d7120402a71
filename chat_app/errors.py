"""The app's errors: one tree, so that a page catches what it can show and nothing else.

:class:`AppError` is the base of every error ``chat_app`` raises on purpose. :class:`Refused` is
a request the app turns down: its message says what to do instead, ``field`` names the form
field it is about (a page shows the message there; "" means the whole form) and ``code`` is a
stable name for the reason, which pages and tests match instead of the message's words. The
kinds below it (one per use case: admin sign-in, assistant settings, attachments, ...) let a
page tell apart what needs a different answer, such as signing the admin out.

The engine's own errors (:class:`agent_core.BatonError`) stay the engine's; a use case that
turns one into a refusal says so with ``raise ... from``.
"""

from __future__ import annotations

from typing import ClassVar

__all__ = ["AppError", "Refused"]


class AppError(Exception):
    """Base of the errors the app raises on purpose (not the engine's, nor a library's)."""


class Refused(AppError):
    """A request turned down; nothing was changed. The message is for the user.

    Each kind sets ``default_code``; a raise site names a more precise ``code`` where the
    reason matters to a caller.
    """

    default_code: ClassVar[str] = "refused"

    def __init__(self, message: str, *, field: str = "", code: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.code = code or self.default_code
