"""Fork from here: the dialog that edits a user message and sends it in a new chat, and the
link a fork shows back to the chat it came from."""

from __future__ import annotations

from typing import Any

import reflex as rx

from agent_core import MessageRejected, StoreError
from chat_app.root import root
from chat_app.services.conversation import threads as thread_service
from chat_app.states.identity import IdentityState

__all__ = ["ForkState"]


def _thread_id(path: str) -> str:
    parts = [part for part in path.split("/") if part]
    return parts[-1] if len(parts) >= 2 and parts[-2] == "t" else ""


class ForkState(IdentityState):
    dialog_open: bool = False
    text: str = ""
    _seq: int = 0
    origin_id: str = ""
    origin_title: str = ""

    def _thread(self) -> str:
        return _thread_id(self.router.url.path)

    @rx.event
    def load(self) -> None:
        """On the chat page's load: the origin link, when this chat is a fork."""
        self.dialog_open = False
        origin = thread_service.fork_origin(root(), self._owner(), self._thread())
        self.origin_id = origin.thread_id if origin else ""
        self.origin_title = origin.title if origin else ""

    @rx.event
    def open_at(self, seq: int) -> Any:
        """Open the dialog on the user message ``seq``, its text ready to edit."""
        text = thread_service.user_message_text(root(), self._owner(), self._thread(), int(seq))
        if text is None:
            return rx.toast.error("That message cannot be forked.")
        self._seq, self.text, self.dialog_open = int(seq), text, True
        return None

    @rx.event
    def set_open(self, value: bool) -> None:
        self.dialog_open = value

    @rx.event
    def set_text(self, value: str) -> None:
        self.text = value

    @rx.event
    def fork(self) -> Any:
        """Make the fork and open it; its page sends the edited text as its next message."""
        try:
            fork_id = thread_service.fork_at(
                root(), self._owner(), self._thread(), self._seq, self.text
            )
        except MessageRejected as rejected:
            return rx.toast.error(str(rejected))
        except StoreError as exc:
            return rx.toast.error(f"The chat could not be forked: {exc}")
        if fork_id is None:
            return rx.toast.error("This chat is not yours to fork.")
        self.dialog_open = False
        return rx.redirect(f"/t/{fork_id}")
