"""Baton's error hierarchy. Every error says what the user can do about it."""

from __future__ import annotations

__all__ = [
    "BatonError",
    "ConfigurationError",
    "TranscriptFormatError",
    "HandoffError",
    "HandoffGenerationError",
    "HandoffCancelled",
    "NothingToHandOff",
    "StoreError",
    "MessageRejected",
    "MessageTooLarge",
    "ToolInputError",
    "ProviderError",
    "ContextOverflowError",
    "SandboxUnavailable",
]


class BatonError(Exception):
    """Base of all errors raised by Baton's engine."""


class ConfigurationError(BatonError, ValueError):
    """A policy, model name or setting is invalid; the message names the field and the fix.

    ``field`` is the setting's name where one setting is at fault (``"mask_threshold"``), so
    a form can show the message beside it; "" when the error is not about one setting.
    """

    def __init__(self, message: str, *, field: str = ""):
        super().__init__(message)
        self.field = field


class TranscriptFormatError(BatonError, ValueError):
    """An imported transcript is malformed. Carries the line number where known."""

    def __init__(self, message: str, *, line: int | None = None, path: str | None = None):
        where = ""
        if path:
            where += f"{path}"
        if line is not None:
            where += f":{line}" if where else f"line {line}"
        super().__init__(f"{where}: {message}" if where else message)
        self.line = line
        self.path = path


class HandoffError(BatonError):
    """Base for problems producing a handoff artifact."""


class HandoffGenerationError(HandoffError):
    """The model could not produce a usable handoff (after repair and one re-ask)."""


class HandoffCancelled(HandoffError):
    """The user cancelled a handoff; nothing was changed."""


class NothingToHandOff(HandoffError):
    """A manual handoff was asked for in a session with fewer than two messages."""

    def __init__(self, message: str = "Nothing to hand off (no messages yet)"):
        super().__init__(message)


class StoreError(BatonError):
    """The thread store failed; the operation was rolled back."""


class MessageRejected(BatonError, ValueError):
    """A user message cannot be stored as given (too large, invalid characters)."""


class MessageTooLarge(MessageRejected):
    """A user message larger than Baton or the chat's model takes in one message.

    Nothing was stored. The text can still reach the agent as a file in the thread's
    workspace, which its file tools read in parts: ``size_bytes`` is the text's UTF-8 size
    and, when the model's window is the limit, ``tokens`` and ``room_tokens`` say how much it
    holds and how much one session has room for.
    """

    def __init__(
        self,
        message: str,
        *,
        size_bytes: int,
        tokens: int | None = None,
        room_tokens: int | None = None,
    ):
        super().__init__(message)
        self.size_bytes = size_bytes
        self.tokens = tokens
        self.room_tokens = room_tokens


class ToolInputError(BatonError, ValueError):
    """A tool call's arguments cannot be used (bad quoting, a path outside the workspace).

    The message says what is wrong and how to call the tool instead; the agent loop returns
    it to the model as an error result and the turn goes on.
    """


class ProviderError(BatonError):
    """A model provider failed (after retries). The message never contains credentials."""


class ContextOverflowError(ProviderError):
    """The provider said the prompt is longer than the model's context window."""


class SandboxUnavailable(BatonError):
    """Commands cannot run in a sandbox on this host (no bubblewrap, no user namespaces).

    The message says what is missing; with a real model ``run_command`` is then not offered.
    """
