"""Observation masking: which old tool outputs the model no longer needs verbatim.

The cheap first stage before compaction or a reset: tool outputs are most of an agent's
tokens, and once the agent has acted on one it rarely needs it word for word. A masked
output is replaced in the model's view by a one-line placeholder that says how to reread
it; the tool call and its result stay paired, and the originals stay in the store. Pure:
the coordinator stores the decision as a ``ContextEdit(kind="mask")``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from langchain_core.messages import BaseMessage, ToolMessage

from agent_core.context._build import MASKED
from agent_core.policy import ContextPolicy
from agent_core.strategies._cutoff import safe_cutoff

__all__ = ["UNMASKED_TOOLS", "should_mask", "mask_candidates", "placeholder"]

#: Results never masked: the todo list's updates are what todo tracking and summaries read.
UNMASKED_TOOLS = frozenset({"write_todos"})


def should_mask(utilization: float, policy: ContextPolicy) -> bool:
    """Whether masking is due before this model call (inclusive, like every threshold)."""
    return policy.mask_threshold is not None and utilization >= policy.mask_threshold


def placeholder(tool: str, tokens: int, reread: str) -> str:
    """The line a masked output shows: which tool, how big, and the call that rereads it."""
    return f"[{tool} output masked to save context ({tokens:,} tokens); {reread} shows it again]"


def mask_candidates(
    messages: Sequence[BaseMessage],
    keep_recent_tokens: int,
    count: Callable[[BaseMessage], int],
    *,
    placeholder_tokens: int = 40,
) -> list[int]:
    """Indexes of the tool results to mask: older than the keep-recent span (the same cut a
    compaction would make, so the recent exchange stays verbatim), not a todo update, not
    masked already, and larger than the placeholder that would replace them."""
    cut = safe_cutoff(messages, keep_recent_tokens, count)
    return [
        index
        for index, message in enumerate(messages[:cut])
        if isinstance(message, ToolMessage)
        and message.name not in UNMASKED_TOOLS
        and not message.additional_kwargs.get(MASKED)
        and count(message) > placeholder_tokens
    ]
