"""Which assistant and model the open chat runs on, for the chat page's header."""

from __future__ import annotations

import reflex as rx

from chat_app.root import root
from chat_app.services.conversation import runs as run_service
from chat_app.states.identity import IdentityState
from chat_app.states.new_chat import focus_composer

__all__ = ["ChatAssistantState"]


def _thread_id(path: str) -> str:
    parts = [part for part in path.split("/") if part]
    return parts[-1] if len(parts) >= 2 and parts[-2] == "t" else ""


class ChatAssistantState(IdentityState):
    name: str = ""
    model: str = ""

    @rx.event
    def load(self):
        thread_id = _thread_id(self.router.url.path)
        choice = run_service.chat_assistant(root(), self._owner(), thread_id) if thread_id else None
        self.name, self.model = (choice.name, choice.model_label) if choice else ("", "")
        return focus_composer() if choice else None
