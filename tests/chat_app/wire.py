"""A run's events in their wire shape (what the live channel sends), for assertions."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from typing import Any

from chat_app.services.presentation.ui_events import UiEvent
from chat_app.services.runtime.live import Relayed


async def drained(stream: AsyncIterator[UiEvent]) -> list[dict[str, Any]]:
    """Every event of ``stream``, each as ``{"type": ..., "data": {...}}``."""
    return [event.model_dump() async for event in stream]


def relayed(events: Iterable[Relayed]) -> list[dict[str, Any]]:
    """Live-channel events, each as its wire shape stamped with its ``run``."""
    return [{**event.event.model_dump(), "run": event.run} for event in events]
