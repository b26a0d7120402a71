"""LangChain's LangSmith spans around middleware hooks cost no thread trips when untraced."""

from __future__ import annotations

import contextvars
import threading

from langsmith import tracing_context
from langsmith._internal._aiter import aio_to_thread

import agent_core.runtime._agent  # noqa: F401  (installs the override)


async def _where_a_span_is_set_up() -> int:
    return await aio_to_thread(contextvars.copy_context(), threading.get_ident)


async def test_an_untraced_span_is_set_up_in_place() -> None:
    with tracing_context(enabled=False):
        assert await _where_a_span_is_set_up() == threading.get_ident()


async def test_a_traced_span_is_still_set_up_where_langsmith_sets_it_up() -> None:
    with tracing_context(enabled=True):
        assert await _where_a_span_is_set_up() != threading.get_ident()
