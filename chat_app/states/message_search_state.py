"""The message search dialog: full-text search over every chat of the owner, and opening a
chat at the message found (``/t/<id>?at=<seq>``, which the chat page jumps to on load).

``MessageSearchState.open_dialog`` is the one event that opens it: the header's button
sends it, and a keyboard shortcut can send the same event.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import reflex as rx

from chat_app.root import root
from chat_app.services.conversation import threads as thread_service
from chat_app.states.chat import ChatState
from chat_app.states.identity import IdentityState
from chat_app.states.rows import relative_time

__all__ = ["MessageSearchState", "HitRow"]


@dataclasses.dataclass
class HitRow:
    thread_id: str = ""
    thread_title: str = ""
    seq: int = 0
    where: str = ""
    snippet: str = ""
    href: str = ""


def _hit_row(hit: thread_service.MessageHit) -> HitRow:
    who = "You" if hit.role == "user" else "Assistant"
    when = relative_time(hit.created_at)
    return HitRow(
        thread_id=hit.thread_id,
        thread_title=hit.thread_title,
        seq=hit.seq,
        where=" · ".join(p for p in (who, f"session {hit.session_number}", when) if p),
        snippet=hit.snippet,
        href=f"/t/{hit.thread_id}?at={hit.seq}",
    )


def _thread_id(path: str) -> str:
    parts = [part for part in path.split("/") if part]
    return parts[-1] if len(parts) >= 2 and parts[-2] == "t" else ""


class MessageSearchState(IdentityState):
    dialog_open: bool = False
    query: str = ""
    hits: list[HitRow] = []
    searched: bool = False

    @rx.event
    def open_dialog(self) -> Any:
        """Open the search dialog (the header's button; a shortcut can send it too)."""
        self.dialog_open = True
        return rx.set_focus("message-search-input")

    @rx.event
    def set_open(self, value: bool) -> None:
        self.dialog_open = value

    @rx.event
    def search(self, form: dict) -> None:
        self.query = str(form.get("query") or "").strip()[:200]
        self.hits = [
            _hit_row(h) for h in thread_service.search_messages(root(), self._owner(), self.query)
        ]
        self.searched = bool(self.query)

    @rx.event
    def open_hit(self, thread_id: str, seq: int) -> Any:
        """Open the chat of a hit at its message (in place when it is the open chat)."""
        self.dialog_open = False
        if thread_id == _thread_id(self.router.url.path):
            return ChatState.jump_to_message(int(seq))
        return rx.redirect(f"/t/{thread_id}?at={int(seq)}")

    @rx.event
    def jump_from_url(self) -> Any:
        """On the chat page's load: ``?at=<seq>`` opens the chat at that message."""
        self.dialog_open = False
        at = self.router.url.query_parameters.get("at", "")
        return ChatState.jump_to_message(int(at)) if at.isdigit() else None
