"""The retry decisions around every provider call, on a scripted client (no network)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

from agent_core import ProviderError
from agent_core.providers._errors import ProviderErrorMapping
from agent_core.providers._retry import RetryPolicy


class Busy(Exception):
    """What a provider client raises for a 503."""

    status_code = 503


class Scripted(BaseChatModel):
    """Fails with :class:`Busy` for the first ``failures`` calls; streams ``chunks`` first."""

    failures: int = 0
    chunks_before_failing: int = 0
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        self.calls += 1
        if self.calls <= self.failures:
            raise Busy("overloaded")
        return ChatResult(generations=[ChatGeneration(message=AIMessage("done"))])

    def _stream(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> Iterator[ChatGenerationChunk]:
        self.calls += 1
        for n in range(self.chunks_before_failing):
            yield ChatGenerationChunk(message=AIMessageChunk(f"part {n} "))
        if self.calls <= self.failures:
            raise Busy("overloaded")
        yield ChatGenerationChunk(
            message=AIMessageChunk("done", response_metadata={"finish_reason": "stop"})
        )


def _wrapped(inner: Scripted, warnings: list[str], attempts: int = 3) -> ProviderErrorMapping:
    return ProviderErrorMapping(
        inner=inner,
        provider="openai",
        label="openai:test",
        retry=RetryPolicy(attempts=attempts, base_delay=0.0),
        on_warning=warnings.append,
    )


def test_a_busy_call_is_asked_again_with_a_warning_before_each_wait() -> None:
    warnings: list[str] = []
    inner = Scripted(failures=2)
    assert _wrapped(inner, warnings).invoke("hi").content == "done"
    assert inner.calls == 3
    assert warnings == ["Provider busy (503), retrying in 0.0 s…"] * 2


def test_after_the_last_attempt_the_error_counts_them() -> None:
    inner = Scripted(failures=9)
    with pytest.raises(ProviderError, match="after 3 attempts"):
        _wrapped(inner, []).invoke("hi")
    assert inner.calls == 3


def test_a_stream_that_already_yielded_is_not_asked_again() -> None:
    warnings: list[str] = []
    inner = Scripted(failures=1, chunks_before_failing=2)
    seen: list[str] = []
    with pytest.raises(ProviderError):
        for chunk in _wrapped(inner, warnings).stream("hi"):
            seen.append(str(chunk.content))
    assert seen == ["part 0 ", "part 1 "]  # the text the user saw is never repeated
    assert inner.calls == 1 and warnings == []


def test_a_stream_that_failed_before_its_first_chunk_is_asked_again() -> None:
    inner = Scripted(failures=1)
    text = "".join(str(c.content) for c in _wrapped(inner, []).stream("hi"))
    assert text == "done" and inner.calls == 2
