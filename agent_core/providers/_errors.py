"""Provider failures as Baton errors: retried when worth it, scrubbed of credentials.

:class:`ProviderErrorMapping` wraps a provider's chat model. Every call goes through it, so the
agent loop, the handoff and compaction all see the same behaviour:

- rate limits, 5xx, timeouts and lost connections are retried with backoff, and each retry
  is announced as a ``warning`` stream event (the provider clients' own retries are switched
  off, because they are invisible);
- "the prompt is too long" becomes :class:`~agent_core.errors.ContextOverflowError`, so the
  runner applies the context strategy and tries once more;
- a stream that ends without the provider's finish marker keeps its text but is marked cut
  off (:mod:`agent_core.providers._stream_end`); the reply is stored as incomplete;
- everything else becomes :class:`~agent_core.errors.ProviderError` with a message a user can
  act on. No message contains a key or a credentialed URL (see :mod:`agent_core.redaction`),
  and the provider's exception is not chained (a logged traceback would print it).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any, TypeVar

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableLambda
from pydantic import ConfigDict, SecretStr
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
)

from agent_core import events
from agent_core.errors import ContextOverflowError, ProviderError
from agent_core.providers._retry import Failure, RetryPolicy, classify
from agent_core.providers._stream_end import cut_off_chunk, has_finish_marker
from agent_core.redaction import known_secrets, redact_text, url_secrets

__all__ = ["ProviderErrorMapping", "to_provider_error"]

log = logging.getLogger(__name__)
_R = TypeVar("_R", Retrying, AsyncRetrying)

_KEY_HINT = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}


def _provider_detail(exc: BaseException) -> str:
    """The provider's own one-line explanation, if it sent one."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        message = error.get("message") if isinstance(error, dict) else None
        if isinstance(message, str):
            return message
    message = getattr(exc, "message", None)
    return message if isinstance(message, str) else str(exc)


def to_provider_error(
    exc: BaseException,
    failure: Failure,
    *,
    label: str,
    provider: str,
    attempts: int,
    timeout: float | None,
    secrets: Sequence[str],
) -> ProviderError:
    """The Baton error for ``exc``; its message names the fix and never holds a secret: URLs in
    it lose their credentials and every value in ``secrets`` is replaced."""
    status = f" ({failure.status})" if failure.status else ""
    tries = f" after {attempts} attempts" if attempts > 1 else ""
    detail = redact_text(
        _provider_detail(exc).strip().splitlines()[0] if str(exc).strip() else "", secrets
    )[:200]
    if failure.kind == "overflow":
        return ContextOverflowError(
            f"{label}: the prompt is longer than the model's context window{status}"
        )
    if failure.kind == "busy":
        message = f"{label} is busy{status} and still failing{tries}; try again in a minute"
    elif failure.kind == "timeout":
        message = (
            f"{label} did not answer within {timeout:g} s{tries}; raise "
            "BATON_MODEL_TIMEOUT or try again"
            if timeout
            else f"{label} did not answer in time{tries}"
        )
    elif failure.kind == "unreachable":
        message = f"{label} could not be reached{tries}; check the base URL and the network"
    elif failure.kind == "auth":
        hint = _KEY_HINT.get(provider)
        message = f"{label} rejected the credentials{status}" + (f"; check {hint}" if hint else "")
    elif failure.kind == "status":
        message = (
            f"{label} returned an error{status}: {detail}"
            if detail
            else f"{label} returned an error{status}"
        )
    else:
        message = (
            f"{label} sent a response Baton could not read ({type(exc).__name__}); "
            "nothing from it was kept. Try again"
        )
    return ProviderError(redact_text(message, secrets))


def _emit_warning(message: str) -> None:
    """Show ``message`` in the running stream (if any) and in the log."""
    log.warning("%s", message)
    try:
        from langgraph.config import get_stream_writer

        writer = get_stream_writer()
    except (RuntimeError, ImportError):  # not inside a graph run
        return
    writer(events.WarningEvent(message=message))


class ProviderErrorMapping(BaseChatModel):
    """A provider chat model with Baton's retries and error mapping around every call.

    ``structured_method`` is the provider's native structured-output mechanism, for
    :func:`agent_core.handoff._generation.generate_handoff`.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    inner: BaseChatModel
    provider: str
    label: str
    structured_method: str | None = None
    retry: RetryPolicy = RetryPolicy()
    timeout: float | None = None
    on_warning: Callable[[str], None] | None = None

    @property
    def _llm_type(self) -> str:
        return self.inner._llm_type

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return dict(self.inner._identifying_params)

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> Any:
        return self.inner._get_ls_params(stop=stop, **kwargs)

    # failures ---------------------------------------------------------------------
    def _secrets(self) -> list[str]:
        """The process's known secrets and the client's own: its key, and the credentials in
        its base URL (handed in with the provider settings)."""
        found = known_secrets()
        for value in self.inner.__dict__.values():
            if isinstance(value, SecretStr):
                found.append(value.get_secret_value())
            elif isinstance(value, str) and "://" in value:
                found += url_secrets(value)
        return found

    def _error(self, exc: BaseException, failure: Failure, attempts: int) -> ProviderError:
        if isinstance(exc, ProviderError):
            return type(exc)(redact_text(str(exc), self._secrets()))
        log.info("%s call failed: %s %s", self.label, type(exc).__name__, failure)
        return to_provider_error(
            exc,
            failure,
            label=self.label,
            provider=self.provider,
            attempts=attempts,
            timeout=self.timeout,
            secrets=self._secrets(),
        )

    def _failure(self, exc: BaseException) -> Failure:
        return classify(exc) if not isinstance(exc, ProviderError) else Failure("malformed")

    def _attempts(self, retrying: type[_R], may_retry: Callable[[], bool] = lambda: True) -> _R:
        """Tenacity's loop over this client's decisions: busy, slow and unreachable providers
        are asked again (and only while ``may_retry()``: once a stream has yielded, a retry
        would repeat text the user saw), with :class:`RetryPolicy`'s waits, each announced."""
        return retrying(
            retry=retry_if_exception(lambda exc: may_retry() and self._failure(exc).retryable),
            stop=stop_after_attempt(self.retry.attempts),
            wait=self._wait,
            before_sleep=self._announce,
            reraise=True,
        )

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        failure = self._failure(exc) if exc else Failure("malformed")
        return self.retry.delay(state.attempt_number - 1, failure)

    def _announce(self, state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        failure = self._failure(exc) if exc else Failure("malformed")
        delay = state.next_action.sleep if state.next_action else 0.0
        reason = {
            "busy": f"busy ({failure.status})",
            "timeout": "slow to answer",
            "unreachable": "unreachable",
        }.get(failure.kind, failure.kind)
        (self.on_warning or _emit_warning)(f"Provider {reason}, retrying in {delay:.1f} s…")

    def _given_up(self, exc: Exception, attempts: Retrying | AsyncRetrying) -> ProviderError:
        """The error for a call that failed for good, after ``attempts``' tries."""
        tries = int(attempts.statistics.get("attempt_number", 1))
        return self._error(exc, self._failure(exc), tries)

    def _cut_off(self) -> ChatGenerationChunk:
        # Not an error: the text so far is worth keeping. Retrying would repeat what the
        # user already saw, so the reply is kept and marked instead.
        log.warning(
            "%s ended a stream without its finish marker; the reply is incomplete", self.label
        )
        return cut_off_chunk()

    # calls ------------------------------------------------------------------------
    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        attempts = self._attempts(AsyncRetrying)
        try:
            return await attempts(
                self.inner._agenerate, messages, stop=stop, run_manager=run_manager, **kwargs
            )
        except Exception as exc:  # noqa: BLE001 - mapped, never swallowed
            raise self._given_up(exc, attempts) from None

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        started = False
        attempts = self._attempts(AsyncRetrying, lambda: not started)
        try:
            async for attempt in attempts:
                with attempt:
                    finished = False
                    async for chunk in self.inner._astream(
                        messages, stop=stop, run_manager=run_manager, **kwargs
                    ):
                        started = True
                        finished = finished or has_finish_marker(chunk)
                        yield chunk
                    if started and not finished:
                        yield self._cut_off()
                    return
        except Exception as exc:  # noqa: BLE001 - mapped, never swallowed
            raise self._given_up(exc, attempts) from None

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        attempts = self._attempts(Retrying)
        try:
            return attempts(
                self.inner._generate, messages, stop=stop, run_manager=run_manager, **kwargs
            )
        except Exception as exc:  # noqa: BLE001 - mapped, never swallowed
            raise self._given_up(exc, attempts) from None

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        started = False
        attempts = self._attempts(Retrying, lambda: not started)
        try:
            for attempt in attempts:
                with attempt:
                    finished = False
                    for chunk in self.inner._stream(
                        messages, stop=stop, run_manager=run_manager, **kwargs
                    ):
                        started = True
                        finished = finished or has_finish_marker(chunk)
                        yield chunk
                    if started and not finished:
                        yield self._cut_off()
                    return
        except Exception as exc:  # noqa: BLE001 - mapped, never swallowed
            raise self._given_up(exc, attempts) from None

    # binding ----------------------------------------------------------------------
    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Runnable:
        """The provider's tool binding, applied to this wrapper so calls stay guarded."""
        binding = self.inner.bind_tools(tools, **kwargs)
        return self.bind(**getattr(binding, "kwargs", {}))

    def with_structured_output(
        self, schema: Any, *, include_raw: bool = False, **kwargs: Any
    ) -> Runnable:
        """The provider's own structured output, retried and mapped as one call."""
        runnable = self.inner.with_structured_output(schema, include_raw=include_raw, **kwargs)

        async def ainvoke(value: Any, config: Any = None) -> Any:
            attempts = self._attempts(AsyncRetrying)
            try:
                return await attempts(runnable.ainvoke, value, config)
            except Exception as exc:  # noqa: BLE001 - mapped, never swallowed
                raise self._given_up(exc, attempts) from None

        def invoke(value: Any, config: Any = None) -> Any:
            attempts = self._attempts(Retrying)
            try:
                return attempts(runnable.invoke, value, config)
            except Exception as exc:  # noqa: BLE001 - mapped, never swallowed
                raise self._given_up(exc, attempts) from None

        return RunnableLambda(invoke, afunc=ainvoke, name="structured_output")
