"""What the handoff writer is asked: the instruction, the schema of its answer, and the two
shapes of the request.

The preferred request is the agent's own last request (same system prompt, tools and
messages, so the provider's prompt cache applies and nothing is cut) with the instruction
appended as the last user message. Only when that cannot fit the window (an overflow reset)
is the session rendered as a transcript, newest first, sized to the window minus the reserve
for the answer, beside the previous handoff in full and the tool evidence.
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict, Field

from agent_core.handoff._artifact import HandoffArtifact
from agent_core.handoff._grounded import GroundedFacts
from agent_core.handoff._prompt import TokenCount, render_facts, render_transcript

__all__ = [
    "HANDOFF_INSTRUCTION",
    "HANDOFF_MARKER",
    "HandoffDraft",
    "appended_request",
    "transcript_request",
    "is_handoff_request",
]

#: Opens the appended instruction, so a model double (the simulator) can tell it apart.
HANDOFF_MARKER = "<handoff-request>"

_KEYS = """\
- completed_work: list of finished items (specific: files, functions, commands, results)
- in_progress: list of items started but not finished
- next_step: a verbatim quote from the conversation of what was being done when it stopped
- remaining_tasks: list of what is still to do, most important first
- key_decisions: list of decisions and their reasons (say so when one reverses an earlier one)
- constraints: list of rules and preferences the user stated, quoted verbatim
- errors_and_fixes: list of errors met and how each was fixed (or that it is still open)
- files_modified: list of file paths changed in this session
- current_state_summary: 2-4 sentences on where things stand (what works, what is broken)
- new_goal: only if the user replaced the thread's original goal in this session, the user's
  new goal quoted verbatim; otherwise an empty string"""

HANDOFF_INSTRUCTION = f"""\
You are ending a work session. Write a handoff note so that a fresh session, which cannot see \
this conversation, can continue the work without redoing anything. If the session started \
from an earlier handoff, update that handoff: keep what still holds, mark what this session \
finished or changed.
Answer with one JSON object with these keys, and call no tool:
{_KEYS}
Be concise and concrete. Do not invent work. The tool evidence is authoritative."""


class HandoffDraft(BaseModel):
    """What the model is asked to fill in (the schema for structured output)."""

    model_config = ConfigDict(extra="forbid")
    completed_work: list[str] = Field(description="Finished items, specific and concise")
    in_progress: list[str] = Field(description="Items started but not finished")
    next_step: str = Field("", description="Verbatim quote of what was being done")
    remaining_tasks: list[str] = Field(description="What is still to do, most important first")
    key_decisions: list[str] = Field(description="Decisions made and why")
    constraints: list[str] = Field(
        default_factory=list, description="Rules and preferences the user stated, verbatim"
    )
    errors_and_fixes: list[str] = Field(
        default_factory=list, description="Errors met and how each was fixed"
    )
    files_modified: list[str] = Field(description="Paths of files changed in this session")
    current_state_summary: str = Field(description="2-4 sentences on where things stand")
    new_goal: str = Field("", description="The user's replacement goal, verbatim, if any")


def is_handoff_request(message: BaseMessage) -> bool:
    """Whether ``message`` is the appended handoff instruction."""
    return isinstance(message.content, str) and message.content.startswith(HANDOFF_MARKER)


def appended_request(
    messages: Sequence[BaseMessage], system_prompt: str | None, focus: str | None
) -> list[BaseMessage]:
    """The agent's own request (system prompt, then its messages unchanged) plus the
    instruction as the last message: a byte-identical prefix of the agent's last call."""
    instruction = f"{HANDOFF_MARKER}\n{HANDOFF_INSTRUCTION}"
    if focus:
        instruction += f"\nThe user asked the handoff to focus on: {focus}"
    head = [SystemMessage(system_prompt)] if system_prompt else []
    return [*head, *messages, HumanMessage(instruction)]


def transcript_request(
    messages: Sequence[BaseMessage],
    facts: GroundedFacts,
    focus: str | None,
    previous: HandoffArtifact | None,
    count: TokenCount,
    budget_tokens: int,
) -> list[BaseMessage]:
    """The fallback: the previous handoff in full, the tool evidence, and the newest part of
    the session that fits what is left of ``budget_tokens``."""
    system = HANDOFF_INSTRUCTION
    if focus:
        system += f"\nThe user asked the handoff to focus on: {focus}"
    evidence = f"<tool-evidence>\n{render_facts(facts)}\n</tool-evidence>"
    parts = []
    if previous is not None:
        parts.append(f"<previous-handoff>\n{previous.to_markdown()}\n</previous-handoff>")
    room = max(200, budget_tokens - count(system) - count(evidence) - sum(map(count, parts)))
    parts.append(f"<transcript>\n{render_transcript(messages, count, room)}\n</transcript>")
    parts.append(evidence)
    return [SystemMessage(system), HumanMessage("\n\n".join(parts))]
