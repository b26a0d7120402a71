"""The stream event protocol (DESIGN.md §2): custom events the UI renders and the store keeps.

Every event is a plain dict ``{"type": ..., "data": {...}}`` so it can cross a websocket or
be stored as JSON unchanged.
"""

from __future__ import annotations

from typing import Any, Literal

__all__ = [
    "ResetPhase",
    "context_reset",
    "compaction",
    "todo_compressed",
    "masking",
    "utilization",
    "warning",
    "reply_cut_off",
    "queued",
    "accepted",
]

ResetPhase = Literal["reset_starting", "input_blocked", "reset_complete", "reset_failed"]


def context_reset(event: ResetPhase, **data: Any) -> dict[str, Any]:
    return {"type": "context_reset", "data": {"event": event, **data}}


def compaction(**data: Any) -> dict[str, Any]:
    return {"type": "compaction", "data": data}


def todo_compressed(**data: Any) -> dict[str, Any]:
    return {"type": "todo_compressed", "data": data}


def masking(**data: Any) -> dict[str, Any]:
    return {"type": "masking", "data": data}


def utilization(*, tokens: int, window: int, basis: str, **data: Any) -> dict[str, Any]:
    fraction = tokens / window if window else 0.0
    return {
        "type": "utilization",
        "data": {"tokens": tokens, "window": window, "fraction": round(fraction, 4), "basis": basis, **data},
    }


def warning(message: str, **data: Any) -> dict[str, Any]:
    return {"type": "warning", "data": {"message": message, **data}}


def reply_cut_off(*, message_id: str) -> dict[str, Any]:
    """The warning for a reply whose stream ended before the provider finished it; the
    stored message ``message_id`` keeps the text and has ``meta["incomplete"]``."""
    return warning(
        "The reply was cut off: the provider ended the stream before finishing it. The text "
        "so far is kept; ask the agent to continue.",
        reason="reply_cut_off",
        message_id=message_id,
    )


def queued(**data: Any) -> dict[str, Any]:
    return {"type": "queued", "data": data}


def accepted(*, pending_id: str, client_id: str) -> dict[str, Any]:
    """The message the sender's browser called ``client_id`` is stored (once, whatever the
    number of sends); the browser may forget its copy."""
    return {"type": "accepted", "data": {"pending_id": pending_id, "client_id": client_id}}
