"""Whether the open chat's assistant can run commands on this host (a note under the chat)."""

from __future__ import annotations

import reflex as rx

from chat_app.root import root
from chat_app.services.admin import capabilities
from chat_app.states.identity import IdentityState

__all__ = ["CommandsNoticeState"]


def _thread_id(path: str) -> str:
    parts = [part for part in path.split("/") if part]
    return parts[-1] if len(parts) >= 2 and parts[-2] == "t" else ""


class CommandsNoticeState(IdentityState):
    note: str = ""

    @rx.event
    def load(self) -> None:
        thread_id = _thread_id(self.router.url.path)
        self.note = (
            capabilities.commands_note(root(), self._owner(), thread_id) if thread_id else ""
        )
