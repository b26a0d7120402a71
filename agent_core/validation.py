"""Checks on text before it is stored: user input is validated, tool output is sanitized.

User messages are rejected with a clear reason (nothing is stored); text produced by tools
or models is made storable instead, because refusing it would lose the agent's work.
"""

from __future__ import annotations

import unicodedata

from agent_core.errors import MessageRejected, MessageTooLarge

__all__ = ["MAX_MESSAGE_BYTES", "UserText", "validate_user_message", "sanitize_text"]

#: A user message larger than this is refused. Pasting a log of a few hundred KB is normal;
#: megabytes are almost always a mistake and would fill a model's window on their own.
MAX_MESSAGE_BYTES = 512 * 1024


# Characters that draw nothing but are not Unicode whitespace: the Hangul fillers and the
# blank Braille pattern (format characters, category Cf, are caught by category).
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _visible(text: str) -> bool:
    """Whether ``text`` has a character that draws something (not only zero-width or blank)."""
    return any(
        not ch.isspace() and ch not in _BLANK and unicodedata.category(ch) not in ("Cf", "Cc")
        for ch in text
    )


def _has_lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


class UserText(str):
    """A user message that :func:`validate_user_message` accepted (parsed, not re-checked):
    the app validates a message once, where it arrives, and the engine takes it as it is."""

    __slots__ = ()


def validate_user_message(text: str, *, max_bytes: int = MAX_MESSAGE_BYTES) -> UserText:
    """Return ``text`` stripped of surrounding whitespace, or raise :class:`MessageRejected`.
    A :class:`UserText` was checked already (against the default limit) and is returned as
    it is."""
    if isinstance(text, UserText) and max_bytes == MAX_MESSAGE_BYTES:
        return text
    if not isinstance(text, str):
        raise MessageRejected("A message must be text.")
    if _has_lone_surrogate(text):
        raise MessageRejected(
            "The message contains invalid characters (unpaired UTF-16 surrogates); "
            "paste it again from a UTF-8 source."
        )
    if "\x00" in text:
        raise MessageRejected("The message contains NUL bytes, which cannot be stored.")
    size = len(text.encode("utf-8"))
    if size > max_bytes:
        raise MessageTooLarge(
            f"The message is too large ({size / 1_048_576:.1f} MB; "
            f"the limit is {max_bytes // 1024} KB). Shorten it or send it in parts.",
            size_bytes=size,
        )
    stripped = text.strip()
    if not stripped:
        raise MessageRejected("The message is empty.")
    if not _visible(stripped):
        raise MessageRejected(
            "The message has only invisible characters (zero-width spaces or similar)."
        )
    return UserText(stripped)


def sanitize_text(text: str) -> str:
    """Make model or tool output storable: NUL bytes and lone surrogates become U+FFFD."""
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    if _has_lone_surrogate(text):
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text
