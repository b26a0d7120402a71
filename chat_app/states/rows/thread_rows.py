"""A chat in the thread list."""

from __future__ import annotations

import dataclasses

from chat_app.services.presentation.views import ThreadSummary
from chat_app.states.rows.times import iso_time, relative_time

__all__ = ["ThreadRow", "thread_row"]


@dataclasses.dataclass
class ThreadRow:
    id: str = ""
    title: str = ""
    updated_label: str = ""
    updated_iso: str = ""  # the browser keeps updated_label fresh from it
    session_count: int = 1
    model_label: str = ""


def thread_row(summary: ThreadSummary) -> ThreadRow:
    return ThreadRow(
        id=summary.id,
        title=summary.title or "Untitled",
        updated_label=relative_time(summary.updated_at),
        updated_iso=iso_time(summary.updated_at),
        session_count=summary.session_count or 1,
        model_label=summary.model_label,
    )
