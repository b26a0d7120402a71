"""Credentials out of everything Baton shows or logs, and users' text out of its logs.

A provider URL may carry a key (``https://user:key@host/v1``, ``?api_key=…``), and the
libraries under Baton print URLs freely: httpx logs every request, exception texts quote the
request URL. Guarding each place a URL is built would miss the next library, so redaction is
applied where text leaves the process: :func:`redact_text` for messages a user sees, and
:func:`install_log_redaction` for every log record, whichever library creates it.
"""

from __future__ import annotations

import base64
import json
import logging
import re
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any
from urllib.parse import unquote, unquote_plus

__all__ = [
    "REDACTED",
    "SECRET_ENV_VARS",
    "argv_secrets",
    "forget_known_secrets",
    "hide_user_content",
    "install_log_redaction",
    "known_secrets",
    "redact_argv",
    "redact_text",
    "redact_url",
    "remember_secrets",
    "secret_spans",
    "url_secrets",
]

REDACTED = "[redacted]"
SECRET_ENV_VARS = (
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "OLLAMA_API_KEY",
    "BATON_ADMIN_PASSWORD",
    "BATON_SECRET_KEY",
)
# Shorter values (a user name like "user", a port) are too common to replace in free text.
_MIN_SECRET_LENGTH = 6
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
_URL = re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>`]*[^\s\"'<>`.,;:!?)}]")
_AUTHORITY_END = re.compile(r"[/?#]")


# ----- URLs and text (pure) -----------------------------------------------------------------


def _longest_first(values: Iterable[str]) -> list[str]:
    """The distinct values long enough to be secrets, longest first (so a secret that contains
    another is replaced whole)."""
    return sorted({v for v in values if len(v) >= _MIN_SECRET_LENGTH}, key=len, reverse=True)


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
    return _longest_first(found)


def redact_text(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every URL in it passed through :func:`redact_url` and every secret value
    (of at least six characters) replaced by ``[redacted]``, however it is written there (see
    :func:`secret_spans`). For any text that may reach a page or a log: exception messages,
    provider error bodies, labels."""
    if "://" in text:
        text = _URL.sub(lambda match: redact_url(match.group()), text)
    spans = secret_spans(text, secrets)
    for start, end in reversed(spans):
        text = text[:start] + REDACTED + text[end:]
    return text


# ----- a secret however it is written (pure) ------------------------------------------------

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
        if len(middle) >= _MIN_SECRET_LENGTH:
            found |= {
                (middle.translate(_ASCII_LOWER), True),
                (middle.translate(_URLSAFE).translate(_ASCII_LOWER), True),
            }
    return tuple(sorted(found))


def secret_spans(text: str, secrets: Iterable[str]) -> list[tuple[int, int]]:
    """Where in ``text`` any of ``secrets`` (six characters or more) is written: as it is,
    in another letter case, base64-encoded (the whole base64 run), or cut by whitespace or
    line breaks; sorted, overlapping spans merged (pure)."""
    wanted = _longest_first(secrets)
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


# ----- command lines (pure) -----------------------------------------------------------------

# A flag or a NAME= whose name holds one of these takes a secret (--token, --api-key,
# GITHUB_TOKEN=, --client-secret, --password, --pw, --header); so does a header
# ("Authorization: Bearer …") or a JSON key ({"api_key": …}) of such a name. Over-matching
# only hides a harmless value; under-matching shows a key to every chat user.
_SECRET_NAME = re.compile(
    r"key|token|secret|pass|pwd|(?<![a-z])pw(?![a-z])|authori[sz]ation|auth(?!or)|"
    r"credential|bearer|jwt|cookie|session|signature|header",
    re.I,
)
# Short flags too short to name what they take, but which take a password where they occur
# (mysql -p, many servers' -p/--password).
_SECRET_SHORT_FLAGS = frozenset({"-p", "-H"})
_FLAG = re.compile(r"^(--?[A-Za-z][\w.-]*)(?:=(.*))?$", re.S)
_ASSIGNMENT = re.compile(r"^([A-Za-z_][\w.-]*)=(.*)$", re.S)
_HEADER = re.compile(r"^([A-Za-z][\w-]*)\s*:\s*(\S.*)$", re.S)
# Values that are credentials by their look: the providers' own prefixes (OpenAI and
# Anthropic sk-, GitHub, GitLab, Slack, Hugging Face, AWS key ids, Google, npm, PyPI, JWTs),
# and long runs of letters and digits such as hex or base64 tokens.
_TOKEN_SHAPE = re.compile(
    r"^(?:sk-|sk_|rk_|pk_live|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-|xox[abprs]-|hf_|"
    r"AKIA|ASIA|AIza|ya29\.|npm_|pypi-|eyJ)[\w.+/=-]{8,}$"
)
_LONG_TOKEN = re.compile(r"^(?=(?:.*\d){3})(?=(?:.*[A-Za-z]){3})[A-Za-z0-9_+/=-]{32,}$")


def _secret_value(word: str) -> bool:
    return bool(_TOKEN_SHAPE.match(word) or (_LONG_TOKEN.match(word) and "/" not in word[:1]))


def _secret_flag(flag: str) -> bool:
    return flag in _SECRET_SHORT_FLAGS or bool(_SECRET_NAME.search(flag))


def _leaves(value: Any) -> list[str]:
    """Every string, number or boolean inside a decoded JSON value, as text."""
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [] if value is None else [value if isinstance(value, str) else json.dumps(value)]


def _json_secrets(value: Any) -> list[str]:
    """The secrets inside a decoded JSON value: everything under a secret-named key
    ({"headers": {"Authorization": …}}, {"password": …}) and every string that is one by its
    look, its header shape or its URL."""
    if isinstance(value, dict):
        found = []
        for name, item in value.items():
            found += _leaves(item) if _SECRET_NAME.search(str(name)) else _json_secrets(item)
        return found
    if isinstance(value, list):
        return [secret for item in value for secret in _json_secrets(item)]
    if isinstance(value, str):
        return _text_secrets(value)
    return []


def _text_secrets(word: str) -> list[str]:
    """The secrets of a value that no flag names: a key by its look, a secret header's value,
    a URL's credentials, or what a JSON document holds under secret-named keys."""
    if _secret_value(word):
        return [word]
    header = _HEADER.match(word)
    if header and _SECRET_NAME.search(header.group(1)):
        return [header.group(2), header.group(2).split()[-1]]  # "Bearer X": X alone too
    if word.lstrip()[:1] in ("{", "["):
        try:
            return _json_secrets(json.loads(word))
        except ValueError:
            pass
    if "://" in word:
        return url_secrets(word)
    return []


def _secret_words(words: list[str]) -> list[list[str]]:
    """The secrets in each word of a command line: a secret flag's value (``--pw=X``) and
    every word after a secret flag up to the next flag (``--header "Authorization: …"``,
    ``-p X``), a secret ``NAME=value``'s value, and whatever :func:`_text_secrets` finds."""
    found: list[list[str]] = []
    after_secret_flag = False
    for word in words:
        flag, assignment = _FLAG.match(word), _ASSIGNMENT.match(word)
        if after_secret_flag and not flag:
            header = _HEADER.match(word)  # a header's name stays shown, its value is secret
            value = header.group(2) if header else word
            found.append([value, value.split()[-1], *_text_secrets(word)])
            continue
        after_secret_flag = False
        if flag and _secret_flag(flag.group(1)):
            after_secret_flag = flag.group(2) is None
            found.append(
                [] if after_secret_flag else [flag.group(2), *_text_secrets(flag.group(2))]
            )
        elif flag and flag.group(2) is not None:
            found.append(_text_secrets(flag.group(2)))
        elif assignment and _SECRET_NAME.search(assignment.group(1)):
            found.append([assignment.group(2), *_text_secrets(assignment.group(2))])
        elif assignment:
            found.append(_text_secrets(assignment.group(2)))
        else:
            found.append(_text_secrets(word))
    return found


def _redact_json(value: Any) -> Any:
    """A decoded JSON value with what :func:`_json_secrets` finds replaced."""
    if isinstance(value, dict):
        return {
            name: REDACTED if _SECRET_NAME.search(str(name)) else _redact_json(item)
            for name, item in value.items()
        }
    if isinstance(value, list):
        return [_redact_json(item) for item in value]
    if isinstance(value, str):
        return _redact_word(value, _text_secrets(value))
    return value


def _redact_word(word: str, secrets: list[str]) -> str:
    """``word`` with each of ``secrets`` replaced, longest first; a word that is wholly
    secret becomes ``[redacted]``, a JSON document is shown again with its secrets replaced."""
    if word in secrets:
        return REDACTED
    if word.lstrip()[:1] in ("{", "["):
        try:
            return json.dumps(_redact_json(json.loads(word)))
        except ValueError:
            pass
    if "://" in word:
        word = redact_url(word)
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        word = word.replace(secret, REDACTED)
    return word


def redact_argv(words: Iterable[str]) -> list[str]:
    """A command line to show: the value of every secret-named flag (``--token X``,
    ``--api-key=X``, ``--pw=X``, ``-p X``, ``--header "Authorization: Bearer X"``) and every
    word after it up to the next flag, every secret-named ``NAME=X``, the value of a secret
    header, what a JSON argument holds under secret-named keys, every word shaped like a key,
    and a URL's credentials become ``[redacted]``; the rest stays, so an admin still sees
    which command runs (pure)."""
    words = list(words)
    return [
        _redact_word(word, secrets)
        for word, secrets in zip(words, _secret_words(words), strict=True)
    ]


def argv_secrets(words: Iterable[str]) -> list[str]:
    """The secret values :func:`redact_argv` hides, to redact wherever else they turn up
    (an error quoting the command, the server's own log lines) (pure)."""
    words = list(words)
    found = [secret for secrets in _secret_words(words) for secret in secrets]
    found += [value for word in words if "://" in word for value in url_secrets(word)]
    return _longest_first(found)


# ----- the environment ----------------------------------------------------------------------


def _secrets_in(env: Mapping[str, str]) -> list[str]:
    found = [env.get(name, "") for name in SECRET_ENV_VARS]
    for name, value in env.items():
        if name.endswith("_URL") and "://" in value:
            found += url_secrets(value)
    return _longest_first(found)


# The secrets the process was told of: those of its settings, handed over by whoever started
# it (the app's composition root), and credentials read from the database at run time (an MCP
# server's environment variables and headers). The engine reads no environment itself.
_remembered: set[str] = set()


def remember_secrets(values: Iterable[str]) -> None:
    """Treat ``values`` as secrets from now on in this process: :func:`known_secrets` (and so
    every log record) includes them. For the credentials of the process's settings, at
    start-up, and for credentials read from the database at run time."""
    fresh = {v for v in values if len(v) >= _MIN_SECRET_LENGTH} - _remembered
    if fresh:
        _remembered.update(fresh)


def known_secrets(env: Mapping[str, str] | None = None) -> list[str]:
    """The credential values configured in ``env``: the key variables (:data:`SECRET_ENV_VARS`)
    and what any ``*_URL`` variable carries in its userinfo or secret query parameters (pure).

    Without ``env``, the secrets the process was told of (:func:`remember_secrets`), longest
    first: what the log filter and the user-visible error texts hide.
    """
    if env is not None:
        return _secrets_in(env)
    return _longest_first(_remembered)


def forget_known_secrets() -> None:
    """Forget the secrets :func:`remember_secrets` was told of (a test's, once it ends)."""
    _remembered.clear()


# ----- logging ------------------------------------------------------------------------------


# What users typed reaches logs inside exception texts: a SQL statement's parameters (an
# engine that does not hide them) and pydantic's quoted input. Neither is a secret to look
# up, so both are cut by their shape. The parameters run to SQLAlchemy's "(Background on
# this error" line, or to the end of the text.
_SQL_PARAMETERS = re.compile(r"\[parameters: .*?(?=\n\(Background on this error|\Z)", re.S)
_PYDANTIC_INPUT = re.compile(r"input_value=.*?, input_type=", re.S)


def hide_user_content(text: str) -> str:
    """``text`` without the parts that carry what a user typed: SQL statement parameters
    and pydantic's quoted input (pure)."""
    if "[parameters: " in text:
        text = _SQL_PARAMETERS.sub("[parameters: hidden]", text)
    if "input_value=" in text:
        text = _PYDANTIC_INPUT.sub("input_value=[hidden], input_type=", text)
    return text


def _mentions(text: str, secrets: list[str]) -> bool:
    return (
        "://" in text
        or "[parameters: " in text
        or "input_value=" in text
        or bool(secret_spans(text, secrets))
    )


def _clean(text: str, secrets: list[str]) -> str:
    return hide_user_content(redact_text(text, secrets))


def _redact_record(record: logging.LogRecord) -> None:
    secrets = known_secrets()
    try:
        message = record.getMessage()
    except Exception:  # noqa: BLE001 - a malformed record; logging reports it when emitted
        message = ""
    if _mentions(message, secrets):
        clean = _clean(message, secrets)
        if clean != message:
            record.msg, record.args = clean, ()
    if record.exc_info and record.exc_info[1] is not None and not record.exc_text:
        trace = logging.Formatter().formatException(record.exc_info)
        clean = _clean(trace, secrets) if _mentions(trace, secrets) else trace
        if clean != trace:
            # Formatters print exc_text as it is; the exception itself must not reach a
            # handler that renders it again (rich tracebacks, error trackers).
            record.exc_text, record.exc_info = clean, None
    if record.stack_info and _mentions(record.stack_info, secrets):
        record.stack_info = _clean(record.stack_info, secrets)


class _RedactingRecordFactory:
    """The previous log record factory, with every record redacted as it is created."""

    def __init__(self, inner: Callable[..., logging.LogRecord]) -> None:
        self.inner = inner

    def __call__(self, *args: Any, **kwargs: Any) -> logging.LogRecord:
        record = self.inner(*args, **kwargs)
        _redact_record(record)
        return record


def install_log_redaction() -> None:
    """Redact every log record created from now on in this process, whoever logs it (httpx,
    uvicorn, Reflex, Baton): URLs lose their credentials, known secret values are replaced.

    Call once at process start, before servers and clients log; calling it again does nothing.
    """
    current = logging.getLogRecordFactory()
    if not isinstance(current, _RedactingRecordFactory):
        logging.setLogRecordFactory(_RedactingRecordFactory(current))
