"""The model named once per run, not under every reply (pure)."""

from __future__ import annotations

from chat_app.services.presentation.views import TimelineItem

__all__ = ["RunLabeller"]


class RunLabeller:
    """Keeps an assistant reply's model label only where a run starts: the first reply after
    a user message or a session divider, or a reply by another model than the one before."""

    def __init__(self) -> None:
        self.named = ""

    def apply(self, item: TimelineItem) -> TimelineItem:
        if item.kind == "divider" or (item.kind == "message" and item.role == "user"):
            self.named = ""
            return item
        if item.kind != "message" or item.role != "assistant" or not item.model:
            return item
        if item.model == self.named:
            return item.model_copy(update={"model": ""})
        self.named = item.model
        return item
