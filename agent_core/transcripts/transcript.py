"""The result of importing a transcript: langchain messages plus provider-reported usage."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import BaseMessage
from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Transcript", "UsagePoint"]


class UsagePoint(BaseModel):
    """Usage a provider reported for one model call.

    ``message_index`` is the index of the AIMessage the call produced, which is also the
    number of messages that were sent as its input (``messages[:message_index]``).
    ``input_tokens`` includes cached input (cache reads and writes) where the source splits it.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    message_index: int = Field(ge=0)
    input_tokens: int = Field(ge=0)
    output_tokens: int | None = Field(default=None, ge=0)


class Transcript(BaseModel):
    """An imported conversation in one common shape, whatever tool wrote it."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    format: str
    messages: list[BaseMessage]
    metadata: dict[str, Any] = Field(default_factory=dict)
    usage: list[UsagePoint] = Field(default_factory=list)
