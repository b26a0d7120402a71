"""A message's token figure for its tooltip: the provider's accounting stored with a reply
when there is one, else a count with the project's tiktoken counter (marked as counted)."""

from __future__ import annotations

from functools import lru_cache

from agent_core import StoredMessage, TokenCounter

__all__ = ["usage_label"]

_DEFAULT_MODEL = "gpt-4"  # user rows name no model: counted with cl100k


@lru_cache(maxsize=16)
def _counter(model: str) -> TokenCounter:
    return TokenCounter(model)


def usage_label(row: StoredMessage) -> str:
    """``"1,204 in · 87 out tokens (provider)"`` for a reply the provider accounted for,
    ``"87 tokens"`` when the store kept a count, else ``"~87 tokens (counted)"``."""
    usage = row.meta.get("usage") if isinstance(row.meta, dict) else None
    if isinstance(usage, dict) and isinstance(usage.get("output_tokens"), int):
        given = usage.get("input_tokens")
        head = f"{given:,} in · " if isinstance(given, int) else ""
        return f"{head}{usage['output_tokens']:,} out tokens (provider)"
    if row.token_count is not None:
        return f"{row.token_count:,} tokens"
    try:
        counter = _counter(row.model or _DEFAULT_MODEL)
    except (KeyError, ValueError):  # a model whose encoding is unknown here
        counter = _counter(_DEFAULT_MODEL)
    return f"~{counter.count_text(row.content):,} tokens (counted)"
