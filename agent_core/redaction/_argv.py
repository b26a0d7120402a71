"""Command lines to show: the secrets in a command's words, and the words without them (pure)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from ._urls import REDACTED, longest_first, redact_url, url_secrets

__all__ = [
    "argv_secrets",
    "redact_argv",
]

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
    return longest_first(found)
