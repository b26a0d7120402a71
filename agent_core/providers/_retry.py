"""When and how long to wait before asking a provider again.

Pure decisions only: :func:`classify` reads a provider exception (OpenAI, Anthropic, Ollama
or the HTTP layer under them) without importing the provider packages, and
:class:`RetryPolicy` says how long to wait. The waiting and the user-visible status live in
:mod:`agent_core.providers._errors`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Failure", "RetryPolicy", "classify"]

FailureKind = Literal["overflow", "busy", "timeout", "unreachable", "auth", "status", "malformed"]

# Phrases providers use for "the prompt does not fit the context window".
_OVERFLOW_PHRASES = (
    "context_length_exceeded",
    "prompt is too long",
    "maximum context length",
    "context window",
    "too many tokens",
)
_TIMEOUT_TYPES = {
    "APITimeoutError",
    "TimeoutException",
    "ReadTimeout",
    "ConnectTimeout",
    "PoolTimeout",
    "WriteTimeout",
    "TimeoutError",
}
_UNREACHABLE_TYPES = {"APIConnectionError", "ConnectError", "ConnectionError", "NetworkError"}


@dataclass(frozen=True)
class Failure:
    """What went wrong with one provider call, as far as retrying is concerned."""

    kind: FailureKind
    status: int | None = None
    retry_after: float | None = None

    @property
    def retryable(self) -> bool:
        return self.kind in ("busy", "timeout", "unreachable")


@dataclass(frozen=True)
class RetryPolicy:
    """``attempts`` calls in all, waiting ``base_delay`` × 2ⁿ (capped) between them."""

    attempts: int = 4
    base_delay: float = 1.0
    max_delay: float = 30.0

    def delay(self, retry: int, failure: Failure) -> float:
        """Seconds to wait before retry number ``retry`` (0-based)."""
        if failure.retry_after is not None:
            return min(max(failure.retry_after, 0.0), self.max_delay)
        return min(self.base_delay * (2**retry), self.max_delay)


def classify(exc: BaseException) -> Failure:
    """Sort a provider exception into one :data:`FailureKind`."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    status = _status(exc)
    if status is not None:
        if status in (400, 413) and _mentions_overflow(exc):
            return Failure("overflow", status)
        if status in (408, 409, 429) or status >= 500:
            return Failure("busy", status, _retry_after(exc))
        if status in (401, 403):
            return Failure("auth", status)
        return Failure("status", status)
    if names & _TIMEOUT_TYPES:
        return Failure("timeout")
    if names & _UNREACHABLE_TYPES:
        return Failure("unreachable")
    return Failure("malformed")


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    if status is None:
        response = getattr(exc, "response", None)
        status = getattr(response, "status_code", None)
    return status if isinstance(status, int) else None


def _mentions_overflow(exc: BaseException) -> bool:
    code = str(getattr(exc, "code", "") or "")
    text = f"{code} {exc} {getattr(exc, 'body', '')}".lower()
    return any(phrase in text for phrase in _OVERFLOW_PHRASES)


def _retry_after(exc: BaseException) -> float | None:
    headers = getattr(getattr(exc, "response", None), "headers", None)
    value = headers.get("retry-after") if headers is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:  # an HTTP date; the exponential backoff is good enough
        return None
