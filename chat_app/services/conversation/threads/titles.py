"""What a chat is called before and after its first message (pure)."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["DEFAULT_TITLE", "title_from_message", "title_from_requests"]

DEFAULT_TITLE = "New chat"
TITLE_CHARS = 60


def title_from_message(text: str) -> str:
    """A chat's title from its first message: one line, cut at a word near 60 characters."""
    title = " ".join(text.split())
    if len(title) <= TITLE_CHARS:
        return title or DEFAULT_TITLE
    return title[: TITLE_CHARS - 3].rsplit(" ", 1)[0] + "…"


# A harness's own prompt opens with a Markdown heading (aider's "# Fix any errors below, if
# possible."); what a person types rarely does.
_HEADING = re.compile(r"^\s*#{1,6}\s")
_MARKUP = re.compile(r"(^|\s)(#{1,6}|>|[-*+]|\d+\.)\s+|[`*_~]+")


def title_from_requests(texts: Iterable[str]) -> str | None:
    """An imported chat's title from its user messages: the first that reads as a request
    (not a harness's Markdown-headed prompt), else the first, without Markdown marks."""
    said = [text for text in texts if text.strip()]
    if not said:
        return None
    chosen = next((text for text in said if not _HEADING.match(text)), said[0])
    return title_from_message(_MARKUP.sub(" ", chosen))
