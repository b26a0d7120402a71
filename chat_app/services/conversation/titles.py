"""What a chat is called before and after its first message (pure)."""

from __future__ import annotations

__all__ = ["DEFAULT_TITLE", "title_from_message"]

DEFAULT_TITLE = "New chat"
TITLE_CHARS = 60


def title_from_message(text: str) -> str:
    """A chat's title from its first message: one line, cut at a word near 60 characters."""
    title = " ".join(text.split())
    if len(title) <= TITLE_CHARS:
        return title or DEFAULT_TITLE
    return title[: TITLE_CHARS - 3].rsplit(" ", 1)[0] + "…"
