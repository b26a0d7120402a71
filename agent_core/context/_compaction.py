"""In-place compaction: the summary that replaces a session's older messages, what its model
call cost, and whether it is worth keeping (:func:`worth_keeping`: never a summary that is
not smaller than what it replaces)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict, Field

from agent_core.handoff._facts import extract_facts

__all__ = [
    "summarize_for_compaction",
    "facts_summary",
    "worth_keeping",
    "call_usage",
    "CompactionSummary",
    "COMPACTION_PROMPT",
]

log = logging.getLogger(__name__)

COMPACTION_PROMPT = (
    "Summarize the earlier part of this agent session so the agent can keep working without it. "
    "Keep: the user's goals and constraints, decisions made, files created or changed, commands "
    "and their outcomes, errors still open, and the next steps. Be concise and factual; no "
    "preamble."
)
_RENDER_CHARS = 1_500


def render_for_summary(messages: Sequence[BaseMessage], budget_chars: int) -> str:
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


class CompactionSummary(BaseModel):
    """A summary and what writing it cost: the model call's input and output tokens (the
    provider's figures when it reported them, else counted; zero for the facts-only
    fallback of a call that failed, which the provider did not bill)."""

    model_config = ConfigDict(extra="forbid")
    text: str
    source: Literal["model", "facts"]
    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)
    reported: bool = False  # the provider's own figures


def worth_keeping(tokens_before: int, tokens_after: int) -> bool:
    """A summary is kept only when it is smaller than the messages it replaces: a summary of
    78 tokens' worth that takes 91 would make the context bigger, and the agent would lose
    the originals for nothing."""
    return tokens_after < tokens_before


def call_usage(input_tokens: int, output_tokens: int) -> dict[str, int]:
    """A summarizing call's tokens as a row's ``meta["usage"]``, the shape a reply's has."""
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "total_tokens": input_tokens + output_tokens,
    }


def facts_summary(messages: Sequence[BaseMessage]) -> str:
    """A model-free summary from what the tools prove (the fallback)."""
    facts = extract_facts(messages)
    parts = [f"{len(messages)} earlier messages were compacted."]
    if facts.files_modified:
        parts.append("Files modified: " + ", ".join(facts.modified_paths[-20:]) + ".")
    if facts.commands:
        last = facts.commands[-3:]
        parts.append(
            "Recent commands: "
            + "; ".join(f"`{c.command}` (exit {c.exit_status})" for c in last)
            + "."
        )
    if facts.todos:
        parts.append("Todos: " + "; ".join(f"{t.content} [{t.status}]" for t in facts.todos) + ".")
    requests = [
        m.content for m in messages if isinstance(m, HumanMessage) and isinstance(m.content, str)
    ]
    if requests:
        parts.append("User requests: " + " / ".join(r[:200] for r in requests[-3:]))
    return " ".join(parts)


async def summarize_for_compaction(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    *,
    max_tokens: int,
    count_text: Callable[[str], int],
) -> CompactionSummary:
    """Ask the model for a summary; fall back to :func:`facts_summary`, never error text.
    The result says what the call cost (the provider's usage, else counted)."""
    prompt = [
        SystemMessage(content=COMPACTION_PROMPT),
        HumanMessage(content=render_for_summary(messages, budget_chars=max_tokens * 24)),
    ]
    sent = sum(count_text(str(m.content)) for m in prompt)
    input_tokens = output_tokens = 0
    reported = False
    try:
        reply = await model.ainvoke(prompt)
        text = reply.content if isinstance(reply.content, str) else ""
        usage = getattr(reply, "usage_metadata", None) or {}
        reported = bool(usage.get("input_tokens"))
        input_tokens = int(usage.get("input_tokens") or sent)
        output_tokens = int(usage.get("output_tokens") or count_text(text))
    except Exception:  # the provider failed: the facts still hold
        log.warning("compaction summary failed; using the facts-only summary", exc_info=True)
        text = ""
    text = text.strip()
    source: Literal["model", "facts"] = "model"
    if not text:
        text, source = facts_summary(messages), "facts"
    if count_text(text) > max_tokens:
        text = text[: max_tokens * 3].rsplit(" ", 1)[0] + " …"
    return CompactionSummary(
        text=text,
        source=source,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        reported=reported,
    )
