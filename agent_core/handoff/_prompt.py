"""Rendering a session for the fallback handoff prompt: the newest messages that fit, and the
facts."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from langchain_core.messages import BaseMessage

from agent_core.handoff._facts_only import squeeze
from agent_core.handoff._grounded import GroundedFacts

__all__ = ["TokenCount", "render_transcript", "render_facts"]

TokenCount = Callable[[str], int]

_MESSAGE_CHARS = 1500
_ROLE = {"human": "USER", "ai": "ASSISTANT", "tool": "TOOL RESULT"}


def _render_message(message: BaseMessage) -> str:
    role = _ROLE.get(message.type)
    if role is None:
        return ""  # system prompts are not part of the work to hand on
    lines = [f"{role}: {squeeze(message.text, _MESSAGE_CHARS)}"] if message.text.strip() else []
    for call in getattr(message, "tool_calls", None) or []:
        args = squeeze(json.dumps(call.get("args"), ensure_ascii=False, default=str), 300)
        lines.append(f"TOOL CALL {call.get('name')}: {args}")
    return "\n".join(lines)


def _is_opening(message: BaseMessage) -> bool:
    # The handoff and pinned files that opened the session: the prompt carries the previous
    # handoff in full by itself.
    return bool(message.additional_kwargs.get("baton_kind"))


def render_transcript(messages: Sequence[BaseMessage], count: TokenCount, budget: int) -> str:
    """The newest messages that fit ``budget`` tokens, plus the first user request (the task)."""
    # Rendered newest first and only until the budget is spent: a reset of a long session
    # must not pay for rendering thousands of messages the prompt will never hold.
    messages = [m for m in messages if not _is_opening(m)]
    first_user = next((i for i, m in enumerate(messages) if m.type == "human"), None)
    head = _render_message(messages[first_user]) if first_user is not None else ""
    used = count(head) if head else 0
    tail: list[str] = []
    for index in range(len(messages) - 1, -1, -1):
        if index == first_user:
            continue
        text = _render_message(messages[index])
        if not text:
            continue
        cost = count(text)
        if used + cost > budget:
            tail.append("[… earlier messages omitted …]")
            break
        tail.append(text)
        used += cost
    return "\n\n".join(filter(None, [head, *reversed(tail)]))


def render_facts(facts: GroundedFacts) -> str:
    """The grounded facts as a compact list for the prompt."""
    lines = [f"modified: {c.path} ({c.evidence})" for c in facts.files_modified[:80]]
    lines += [f"commit {c.sha}: {c.message}" for c in facts.commits[-20:]]
    lines += [f"test: {t.command} -> {t.outcome}" for t in facts.test_runs[-10:]]
    lines += [
        f"command: {squeeze(c.command, 200)} -> exit {c.exit_status}" for c in facts.commands[-10:]
    ]
    lines += [f"todo [{t.status}]: {t.content}" for t in facts.todos]
    return "\n".join(lines) or "(no tool evidence)"
