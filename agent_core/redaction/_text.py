"""A secret however it is written (pure), and text without secrets to show or log."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from functools import lru_cache

from ._urls import (
    MIN_SECRET_LENGTH,
    REDACTED,
    URL_IN_TEXT,
    longest_first,
    redact_url,
)

__all__ = [
    "redact_text",
    "secret_spans",
]


def redact_text(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every URL in it passed through :func:`redact_url` and every secret value
    (of at least six characters) replaced by ``[redacted]``, however it is written there (see
    :func:`secret_spans`). For any text that may reach a page or a log: exception messages,
    provider error bodies, labels."""
    if "://" in text:
        text = URL_IN_TEXT.sub(lambda match: redact_url(match.group()), text)
    spans = secret_spans(text, secrets)
    for start, end in reversed(spans):
        text = text[:start] + REDACTED + text[end:]
    return text


# A secret is found as it is, in any letter case (a library that upper-cases a header), base64
# encoded at any of the three byte alignments (an HTTP Basic header, a token inside a JSON
# blob that was encoded), hex encoded (a byte dump), with its characters escaped (``\u0073``
# in JSON, ``\x73`` in a bytes repr, ``%73`` in a URL), and split by whitespace or by
# invisible characters (a wrapped log line, a zero-width space pasted into a key): the text is
# searched with escapes decoded, whitespace and invisible characters removed and its ASCII
# letters lowered, and each hit is mapped back to the characters it came from.
_SKIPPED = r"\s\u00ad\u180e\u200b-\u200f\u2060-\u2064\ufeff"
_SKIPPED_RUN = re.compile(f"[{_SKIPPED}]+")
_NOT_SKIPPED = re.compile(f"[^{_SKIPPED}]")
_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})|%([0-9a-fA-F]{2})")
_ESCAPE_OR_CHAR = re.compile(_ESCAPE.pattern + "|.", re.S)
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_BASE64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_")
_URLSAFE = str.maketrans("+/", "-_")


def _unescaped(match: re.Match[str]) -> str:
    return chr(int(next(group for group in match.groups() if group is not None), 16))


def _escaped(text: str) -> bool:
    return "\\" in text or "%" in text


def _folded(text: str) -> str:
    if _escaped(text):
        text = _ESCAPE.sub(_unescaped, text)
    return _SKIPPED_RUN.sub("", text).translate(_ASCII_LOWER)


def _folded_places(text: str) -> list[tuple[int, int]]:
    """For each character of ``_folded(text)``, the span of ``text`` it came from."""
    if not _escaped(text):
        return [(m.start(), m.end()) for m in _NOT_SKIPPED.finditer(text)]
    places = []
    for match in _ESCAPE_OR_CHAR.finditer(text):
        char = match.group() if match.lastindex is None else _unescaped(match)
        if not _SKIPPED_RUN.match(char):
            places.append((match.start(), match.end()))
    return places


@lru_cache(maxsize=256)
def _needles(secret: str) -> tuple[tuple[str, bool], ...]:
    """What ``secret`` looks like in folded text: itself, its hex, and the part of its base64
    forms (standard and URL-safe, at each of the three alignments) that only its bytes decide;
    each with whether it is base64 (its whole run is then redacted)."""
    data = secret.encode("utf-8")
    # Hex keeps byte boundaries: unlike base64, its neighbours carry nothing of the secret.
    found = {(_folded(secret), False), (data.hex(), False)}
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + data).decode("ascii")
        middle = encoded[-(-8 * shift // 6) : 8 * (shift + len(data)) // 6]
        if len(middle) >= MIN_SECRET_LENGTH:
            found |= {
                (middle.translate(_ASCII_LOWER), True),
                (middle.translate(_URLSAFE).translate(_ASCII_LOWER), True),
            }
    return tuple(sorted(found))


def secret_spans(text: str, secrets: Iterable[str]) -> list[tuple[int, int]]:
    """Where in ``text`` any of ``secrets`` (six characters or more) is written: as it is,
    in another letter case, base64-encoded (the whole base64 run), or cut by whitespace or
    line breaks; sorted, overlapping spans merged (pure)."""
    wanted = longest_first(secrets)
    if not wanted or not text:
        return []
    folded = _folded(text)
    hits = [
        (needle, encoded)
        for secret in wanted
        for needle, encoded in _needles(secret)
        if needle and needle in folded
    ]
    if not hits:
        return []
    places = _folded_places(text)
    spans = []
    for needle, encoded in hits:
        at = folded.find(needle)
        while at >= 0:
            start, end = places[at][0], places[at + len(needle) - 1][1]
            if encoded:  # the whole base64 run: its edges still carry bits of the secret
                while start > 0 and text[start - 1] in _BASE64_CHARS:
                    start -= 1
                while end < len(text) and text[end] in _BASE64_CHARS:
                    end += 1
            spans.append((start, end))
            at = folded.find(needle, at + 1)
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
