"""Test doubles that ship with the engine: function-driven and scripted chat models.

``FunctionChatModel(fn)`` answers with ``fn(messages, **kwargs)`` (an ``AIMessage`` or a
string; raising is allowed, to simulate provider failures); ``ScriptedChatModel`` answers
with the next item of a list. Both support ``bind_tools`` so they work inside agents.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool

__all__ = ["FunctionChatModel", "ScriptedChatModel"]

Responder = Callable[..., AIMessage | str]


class FunctionChatModel(BaseChatModel):
    """A chat model whose every answer comes from a plain function."""

    fn: Responder
    calls: list[list[BaseMessage]] = []
    gate: asyncio.Event | None = None
    """When given, async calls wait for it first (to hold a model call open in race tests)."""
    entered: asyncio.Event | None = None
    """When given, set as soon as an async call starts (before waiting on ``gate``)."""

    model_config = {"arbitrary_types_allowed": True}

    @property
    def _llm_type(self) -> str:
        return "baton-function"

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any):
        return self.bind(
            tools=[convert_to_openai_tool(t) for t in tools], tool_choice=tool_choice, **kwargs
        )

    def _answer(self, messages: list[BaseMessage], **kwargs: Any) -> ChatResult:
        self.calls.append(list(messages))
        answer = self.fn(messages, **kwargs)
        message = AIMessage(content=answer) if isinstance(answer, str) else answer
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._answer(messages, **kwargs)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.entered is not None:
            self.entered.set()
        if self.gate is not None:
            await self.gate.wait()
        return self._answer(messages, **kwargs)


def ScriptedChatModel(answers: Sequence[AIMessage | str | BaseException]) -> FunctionChatModel:  # noqa: N802
    """A model that returns (or raises) ``answers`` in order, then repeats the last one."""
    queue = list(answers)

    def next_answer(messages: list[BaseMessage], **kwargs: Any) -> AIMessage | str:
        item = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(item, BaseException):
            raise item
        return item

    return FunctionChatModel(fn=next_answer, calls=[])
