"""Choosing which of the last message's replies the model sees (after a regenerate)."""

from __future__ import annotations

from typing import Any

import reflex as rx

from chat_app.root import root
from chat_app.services.conversation import runs as run_service
from chat_app.states.chat import ChatState
from chat_app.states.identity import IdentityState

__all__ = ["RepliesState"]


def _thread_id(path: str) -> str:
    parts = [part for part in path.split("/") if part]
    return parts[-1] if len(parts) >= 2 and parts[-2] == "t" else ""


class RepliesState(IdentityState):
    @rx.event
    async def choose(self, seq: int) -> Any:
        """Use the earlier reply holding row ``seq``; the current one is kept, dimmed."""
        try:
            replaced = await run_service.choose_reply(
                root(), self._owner(), _thread_id(self.router.url.path), int(seq)
            )
        except run_service.ReplyRefused as refused:
            return rx.toast.error(str(refused))
        return [
            ChatState.show_replaced([list(reply) for reply in replaced]),
            rx.toast("The model now sees this reply.", duration=2000),
        ]
