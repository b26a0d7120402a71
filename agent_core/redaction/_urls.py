"""Credentials out of a URL, and the credential values in one (pure)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import unquote, unquote_plus

__all__ = [
    "REDACTED",
    "MIN_SECRET_LENGTH",
    "URL_IN_TEXT",
    "longest_first",
    "redact_url",
    "url_secrets",
]

REDACTED = "[redacted]"
# Shorter values (a user name like "user", a port) are too common to replace in free text.
MIN_SECRET_LENGTH = 6
# A query parameter whose name contains one of these holds a credential; over-matching only
# hides a harmless value (max_tokens), under-matching shows a key.
_SECRET_PARAM_PARTS = (
    "key",
    "token",
    "secret",
    "pass",
    "pwd",
    "sig",
    "auth",
    "credential",
    "code",
    "session",
    "jwt",
)
# A URL in free text runs to whitespace or a quote; punctuation at its end belongs to the
# sentence ("(see https://host/v1?token=…)."). The scheme starts at a word boundary, so a long
# run of letters (a base64 blob in a log line) is scanned once, not once per character.
URL_IN_TEXT = re.compile(
    r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>`]*[^\s\"'<>`.,;:!?)}]"
)
_AUTHORITY_END = re.compile(r"[/?#]")


def longest_first(values: Iterable[str]) -> list[str]:
    """The distinct values long enough to be secrets, longest first (so a secret that contains
    another is replaced whole)."""
    return sorted({v for v in values if len(v) >= MIN_SECRET_LENGTH}, key=len, reverse=True)


def _secret_param(name: str) -> bool:
    lowered = unquote_plus(name).lower()
    return any(part in lowered for part in _SECRET_PARAM_PARTS)


def _split(url: str) -> tuple[str, str, str, str, str | None, str | None] | None:
    """``scheme://``, userinfo, host[:port], path, query, fragment (None: absent); None if
    ``url`` has no ``scheme://``. Split by hand: urlsplit rejects or rewrites odd URLs, and
    everything but the credentials must come back as it was."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return None
    end = _AUTHORITY_END.search(rest)
    cut = end.start() if end else len(rest)
    userinfo, at, host = rest[:cut].rpartition("@")
    tail, hash_, fragment = rest[cut:].partition("#")
    path, question, query = tail.partition("?")
    return (
        scheme + sep,
        userinfo if at else "",
        host,
        path,
        query if question else None,
        fragment if hash_ else None,
    )


def _redact_params(params: str) -> str:
    pieces = []
    for piece in params.split("&"):
        name, eq, value = piece.partition("=")
        pieces.append(f"{name}={REDACTED}" if eq and value and _secret_param(name) else piece)
    return "&".join(pieces)


def redact_url(url: str) -> str:
    """``url`` without credentials, to show or log: the userinfo (``user:key@``) is dropped and
    the values of secret-looking query or fragment parameters (``api_key``, ``token``,
    ``signature``…) become ``[redacted]``. Scheme, host, port and path stay, so the user still
    sees where it points; a URL without credentials comes back unchanged."""
    parts = _split(url)
    if parts is None:
        return url
    prefix, userinfo, host, path, query, fragment = parts
    clean_query = None if query is None else _redact_params(query)
    clean_fragment = None if fragment is None else _redact_params(fragment)
    if not userinfo and clean_query == query and clean_fragment == fragment:
        return url
    query_part = "" if clean_query is None else "?" + clean_query
    fragment_part = "" if clean_fragment is None else "#" + clean_fragment
    return prefix + host + path + query_part + fragment_part


def url_secrets(url: str) -> list[str]:
    """The credential values inside ``url`` (user, password, secret parameter values), as
    written and percent-decoded, for replacing wherever they turn up outside a URL."""
    parts = _split(url.strip())
    if parts is None:
        return []
    _, userinfo, _, _, query, fragment = parts
    found = [unquote(value) for value in userinfo.split(":", 1)] + userinfo.split(":", 1)
    for params in (query or "", fragment or ""):
        for piece in params.split("&"):
            name, eq, value = piece.partition("=")
            if eq and _secret_param(name):
                found += [value, unquote_plus(value)]
    return longest_first(found)
