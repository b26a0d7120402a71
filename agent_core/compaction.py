"""In-place compaction: the summary that replaces a session's older messages."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from agent_core.handoff.facts import extract_facts

__all__ = ["summarize_for_compaction", "facts_summary", "COMPACTION_PROMPT"]

log = logging.getLogger(__name__)

COMPACTION_PROMPT = (
    "Summarize the earlier part of this agent session so the agent can keep working without it. "
    "Keep: the user's goals and constraints, decisions made, files created or changed, commands "
    "and their outcomes, errors still open, and the next steps. Be concise and factual; no "
    "preamble."
)
_RENDER_CHARS = 1_500


def _render(messages: Sequence[BaseMessage], budget_chars: int) -> str:
    lines: list[str] = []
    for message in messages:
        text = message.content if isinstance(message.content, str) else str(message.content)
        if isinstance(message, AIMessage) and message.tool_calls:
            calls = ", ".join(f"{c['name']}({str(c['args'])[:200]})" for c in message.tool_calls)
            text = f"{text}\n[calls: {calls}]".strip()
        role = {"human": "user", "ai": "assistant", "tool": "tool"}.get(message.type, message.type)
        lines.append(f"{role}: {text[:_RENDER_CHARS]}")
    rendered = "\n".join(lines)
    # the newest part matters most when the transcript is too long for the summarizer
    return rendered[-budget_chars:]


def facts_summary(messages: Sequence[BaseMessage]) -> str:
    """A model-free summary from what the tools prove (the fallback)."""
    facts = extract_facts(messages)
    parts = [f"{len(messages)} earlier messages were compacted."]
    if facts.files_modified:
        parts.append("Files modified: " + ", ".join(facts.modified_paths[-20:]) + ".")
    if facts.commands:
        last = facts.commands[-3:]
        parts.append("Recent commands: " + "; ".join(
            f"`{c.command}` (exit {c.exit_status})" for c in last) + ".")
    if facts.todos:
        parts.append("Todos: " + "; ".join(f"{t.content} [{t.status}]" for t in facts.todos) + ".")
    requests = [m.content for m in messages if isinstance(m, HumanMessage) and isinstance(m.content, str)]
    if requests:
        parts.append("User requests: " + " / ".join(r[:200] for r in requests[-3:]))
    return " ".join(parts)


async def summarize_for_compaction(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    *,
    max_tokens: int,
    count_text: Callable[[str], int],
) -> str:
    """Ask the model for a summary; fall back to :func:`facts_summary`, never error text."""
    prompt = [
        SystemMessage(content=COMPACTION_PROMPT),
        HumanMessage(content=_render(messages, budget_chars=max_tokens * 24)),
    ]
    try:
        reply = await model.ainvoke(prompt)
        text = reply.content if isinstance(reply.content, str) else ""
    except Exception:  # the provider failed: the facts still hold
        log.warning("compaction summary failed; using the facts-only summary", exc_info=True)
        text = ""
    text = text.strip()
    if not text:
        text = facts_summary(messages)
    if count_text(text) > max_tokens:
        text = text[: max_tokens * 3].rsplit(" ", 1)[0] + " …"
    return text
