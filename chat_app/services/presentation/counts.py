"""A number with its noun, the noun agreeing with it: "1 reset", "2 resets"."""

from __future__ import annotations

__all__ = ["counted"]


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``number`` (with thousands separators) and ``noun``, plural unless it is 1
    (``plural`` when adding an "s" is wrong)."""
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"
