"""Where to cut a session for compaction without separating a tool call from its result."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from agent_core.context._build import context_kind

__all__ = ["safe_cutoff"]


def safe_cutoff(
    messages: Sequence[BaseMessage], keep_recent_tokens: int, count: Callable[[BaseMessage], int]
) -> int:
    """Index ``i``: summarize the conversation before ``i``, keep ``messages[i:]``.

    Keeps at least ``keep_recent_tokens`` of the newest messages, never starts the kept part
    on a ToolMessage (its AIMessage would be cut away) and never summarizes the session's
    context head (handoff, pinned files). Returns the head length when there is nothing
    worth summarizing.
    """
    head = 0
    while head < len(messages) and context_kind(messages[head]) in ("handoff", "pinned"):
        head += 1
    kept = 0
    index = len(messages)
    while index > head and kept < keep_recent_tokens:
        index -= 1
        kept += count(messages[index])
    while head < index < len(messages) and isinstance(messages[index], ToolMessage):
        index -= 1
    # the AIMessage at index-1 must not be split from its results at index..
    before = messages[index - 1] if index > head else None
    if isinstance(before, AIMessage) and before.tool_calls:
        index -= 1
    return max(index, head)
