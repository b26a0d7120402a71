"""What the model sees: the context built from stored rows, compaction, todos."""

from agent_core.context._build import MASKED, build_context, content_text, from_langchain
from agent_core.context._compaction import COMPACTION_PROMPT, facts_summary, render_for_summary

__all__ = [
    "COMPACTION_PROMPT",
    "MASKED",
    "build_context",
    "content_text",
    "facts_summary",
    "from_langchain",
    "render_for_summary",
]
