"""Baton's offline simulator: a deterministic chat model that works like a coding agent.

It is not a language model and never claims to be one. It exists so that every feature of
Baton (streaming, tool calls, resets, compaction, handoffs) runs with no provider and no
network: it plans todos, writes and edits files, runs pseudo commands with verbose output,
and answers structured-output requests with schema-valid data derived from the conversation.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

from agent_core.accounting._tokens import tool_definition
from agent_core.handoff._request import HandoffDraft, is_handoff_request
from agent_core.providers._simulator_fill import fill_schema
from agent_core.providers._simulator_script import Step, next_step

__all__ = ["SimulatorChatModel", "SIMULATOR_LABEL"]

SIMULATOR_LABEL = "Offline simulator"
_WORDS = re.compile(r"\S+\s*")
_STRUCTURED_ID = "call_structured"


def _forced_tool(tools: Sequence[dict[str, Any]] | None, tool_choice: Any) -> dict[str, Any] | None:
    if not tools or tool_choice in (None, "auto", "none"):
        return None
    if isinstance(tool_choice, str) and tool_choice not in ("any", "required"):
        return next((t for t in tools if t["function"]["name"] == tool_choice), None)
    if isinstance(tool_choice, dict):
        name = tool_choice.get("function", {}).get("name") or tool_choice.get("name")
        return next((t for t in tools if t["function"]["name"] == name), None)
    return tools[0] if len(tools) == 1 else None


def _is_summary_request(messages: list[BaseMessage]) -> bool:
    head = messages[0] if messages else None
    return isinstance(head, SystemMessage) and "summar" in str(head.content).lower()[:400]


class SimulatorChatModel(BaseChatModel):
    """Deterministic stand-in for a provider model (see module docstring)."""

    chunk_delay: float = 0.0
    """Seconds to wait between streamed chunks, so a UI shows streaming at a human pace."""
    verbosity: int = 24
    """Roughly how many lines each file write and command output has."""

    @property
    def _llm_type(self) -> str:
        return "baton-simulator"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"verbosity": self.verbosity}

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any):
        formatted = [tool_definition(tool) for tool in tools]
        return self.bind(tools=formatted, tool_choice=tool_choice, **kwargs)

    # decision ------------------------------------------------------------------
    def _respond(self, messages: list[BaseMessage], **kwargs: Any) -> Step:
        forced = _forced_tool(kwargs.get("tools"), kwargs.get("tool_choice"))
        if forced is not None:
            function = forced["function"]
            args = fill_schema(function.get("parameters", {}), messages)
            call = {
                "name": function["name"],
                "args": args,
                "id": _STRUCTURED_ID,
                "type": "tool_call",
            }
            return Step(tool_calls=[call])
        if messages and is_handoff_request(messages[-1]):
            # Asked in plain text for a handoff (the agent's request plus the instruction):
            # the same schema-valid answer, drawn from the conversation, as JSON text.
            draft = fill_schema(HandoffDraft.model_json_schema(), messages[:-1])
            return Step(text=json.dumps(draft, ensure_ascii=False))
        if _is_summary_request(messages):
            return Step(text=_summary(messages))
        return next_step(messages, verbosity=self.verbosity)

    def _message(self, step: Step) -> AIMessage:
        return AIMessage(content=step.text, tool_calls=step.tool_calls)

    # sync ---------------------------------------------------------------------
    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        step = self._respond(messages, **kwargs)
        return ChatResult(generations=[ChatGeneration(message=self._message(step))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for chunk in _chunks(self._respond(messages, **kwargs)):
            if run_manager and isinstance(chunk.message.content, str) and chunk.message.content:
                run_manager.on_llm_new_token(chunk.message.content, chunk=chunk)
            yield chunk

    def _writing_time(self, step: Step, messages: list[BaseMessage]) -> float:
        """Extra seconds a handoff (structured, or asked for in plain text) takes to "write",
        at the streaming pace: a real model spends a while on it, and the UI shows the reset
        (and its Cancel) meanwhile."""
        if not self.chunk_delay:
            return 0.0
        if step.tool_calls and step.tool_calls[0]["id"] == _STRUCTURED_ID and not step.text:
            size = len(json.dumps(step.tool_calls[0]["args"], ensure_ascii=False))
        elif messages and is_handoff_request(messages[-1]):
            size = len(step.text)
        else:
            return 0.0
        return self.chunk_delay * (size // 20)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        step = self._respond(messages, **kwargs)
        await asyncio.sleep(self._writing_time(step, messages))
        return ChatResult(generations=[ChatGeneration(message=self._message(step))])

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        step = self._respond(messages, **kwargs)
        await asyncio.sleep(self._writing_time(step, messages))
        for chunk in _chunks(step):
            if self.chunk_delay:
                await asyncio.sleep(self.chunk_delay)
            if run_manager and isinstance(chunk.message.content, str) and chunk.message.content:
                await run_manager.on_llm_new_token(chunk.message.content, chunk=chunk)
            yield chunk


def _chunks(step: Step) -> Iterator[ChatGenerationChunk]:
    for word in _WORDS.findall(step.text):
        yield ChatGenerationChunk(message=AIMessageChunk(content=word))
    for index, call in enumerate(step.tool_calls):
        yield ChatGenerationChunk(
            message=AIMessageChunk(
                content="",
                tool_call_chunks=[
                    {
                        "name": call["name"],
                        "args": json.dumps(call["args"], ensure_ascii=False),
                        "id": call["id"],
                        "index": index,
                        "type": "tool_call_chunk",
                    }
                ],
            )
        )
    yield ChatGenerationChunk(message=AIMessageChunk(content="", chunk_position="last"))


def _summary(messages: list[BaseMessage]) -> str:
    files: list[str] = []
    commands = 0
    for message in messages:
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                path = call["args"].get("path")
                if path and path not in files:
                    files.append(path)
                commands += call["name"] == "run_command"
    listed = ", ".join(files[-8:]) or "no files yet"
    return (
        f"Summary of earlier work ({len(messages)} messages): touched {listed}; "
        f"ran {commands} commands. Continue with the open todos."
    )
