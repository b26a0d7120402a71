"""Whether a provider's stream reached its end, or was cut off on the way.

Every provider ends a finished reply with a marker that langchain puts in the reply's
``response_metadata``: OpenAI's ``finish_reason``, Anthropic's ``stop_reason``, Ollama's
``done``. A stream that stops without one (a proxy timeout, a dropped connection that closed
cleanly) still parses; without this check its text would be stored as a complete answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGenerationChunk

__all__ = ["INCOMPLETE_KEY", "has_finish_marker", "cut_off_chunk", "is_cut_off"]

#: Set in a reply's ``response_metadata`` when its stream ended without a finish marker.
INCOMPLETE_KEY = "baton_incomplete"
_FINISH_KEYS = ("finish_reason", "stop_reason", "done_reason")


def has_finish_marker(chunk: ChatGenerationChunk) -> bool:
    """Whether one streamed chunk says the provider finished the reply (clients put the
    marker in the chunk's ``generation_info`` or in its message's ``response_metadata``)."""
    return _says_finished(chunk.generation_info or {}) or _says_finished(
        chunk.message.response_metadata
    )


def _says_finished(metadata: Mapping[str, Any]) -> bool:
    return metadata.get("done") is True or any(metadata.get(key) for key in _FINISH_KEYS)


def cut_off_chunk() -> ChatGenerationChunk:
    """The chunk appended to a cut-off stream: no text, only the mark on the merged reply."""
    return ChatGenerationChunk(
        message=AIMessageChunk(content="", response_metadata={INCOMPLETE_KEY: True})
    )


def is_cut_off(message: BaseMessage) -> bool:
    """Whether ``message`` is a reply whose stream ended before the provider finished it."""
    return bool(message.response_metadata.get(INCOMPLETE_KEY))
