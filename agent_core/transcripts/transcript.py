"""The result of importing a transcript: langchain messages plus provider-reported usage."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import BaseMessage
from pydantic import BaseModel, ConfigDict, Field

__all__ = ["NOT_SENT", "Transcript", "UsagePoint"]

# ``additional_kwargs`` key on messages a tool recorded but never sent to the model (aider's
# ``/commands``): they belong to the record, not to any prompt.
NOT_SENT = "baton_not_sent"


class UsagePoint(BaseModel):
    """Usage a provider reported for one model call.

    ``message_index`` is the index of the AIMessage the call produced; the call's input was
    ``messages[prompt_start:message_index]`` minus messages marked ``NOT_SENT``
    (``Transcript.prompt``). ``prompt_start`` moves past a cleared history (aider's ``/clear``).
    ``input_tokens`` includes cached input (cache reads and writes) where the source splits it.
    ``system_label`` names the system prompt the call ran under where the source tells them
    apart (aider's chat mode: ``diff``, ``whole``, ``ask``…); calls with different labels do not
    share a system prompt.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    message_index: int = Field(ge=0)
    input_tokens: int = Field(ge=0)
    output_tokens: int | None = Field(default=None, ge=0)
    prompt_start: int = Field(default=0, ge=0)
    system_label: str | None = None


class Transcript(BaseModel):
    """An imported conversation in one common shape, whatever tool wrote it."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    format: str
    messages: list[BaseMessage]
    metadata: dict[str, Any] = Field(default_factory=dict)
    usage: list[UsagePoint] = Field(default_factory=list)

    def prompt(self, point: UsagePoint) -> list[BaseMessage]:
        """The messages the call behind ``point`` was sent, in order."""
        window = self.messages[point.prompt_start : point.message_index]
        return [m for m in window if not m.additional_kwargs.get(NOT_SENT)]
