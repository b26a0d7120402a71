"""The offer to attach a message that is too large to send: "Attach as pasted-N.md".

A refused message stays in the composer (nothing typed is lost). When it was refused for its
size and a file can hold it, the composer shows the reason and the offer instead of a toast.
Accepting reads the composer's text as it is now, stores it as ``pasted-N.md`` in the
workspace, then puts the short message naming the file in the composer and sends it the
ordinary way (through the outbox), so the text leaves the composer only once the file holds
it. Dismissing leaves the text where it is.
"""

from __future__ import annotations

import json
from typing import Any

import reflex as rx

from agent_core import MessageRejected, MessageTooLarge
from chat_app.root import root
from chat_app.services.conversation import threads as thread_service
from chat_app.states.identity import IdentityState

__all__ = ["PasteOfferState", "refusal_feedback"]

_READ_COMPOSER = "(document.getElementById('composer-input') || {}).value || ''"

# Replaces the composer's text through the native setter (React sees it like typing), then
# presses Send: the message goes out through the outbox like one typed by hand.
_SEND_INSTEAD = """((text) => {
  const box = document.getElementById("composer-input");
  const send = document.getElementById("send-button");
  if (!box || !send) return;
  const setValue = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value").set;
  setValue.call(box, text);
  box.dispatchEvent(new Event("input", {bubbles: true}));
  send.click();
})(%s)"""


def _thread_id(path: str) -> str:
    parts = [part for part in path.split("/") if part]
    return parts[-1] if len(parts) >= 2 and parts[-2] == "t" else ""


def refusal_feedback(rejected: MessageRejected) -> Any:
    """What the chat shows for a refused message: the attach offer when it was refused for
    its size, else a toast with the reason."""
    if isinstance(rejected, MessageTooLarge):
        return PasteOfferState.offer(str(rejected), rejected.size_bytes)
    return rx.toast.error(str(rejected))


class PasteOfferState(IdentityState):
    reason: str = ""
    """Why the message was refused; the offer shows while it is set."""
    file_name: str = ""
    error: str = ""

    def _thread(self) -> str:
        return _thread_id(self.router.url.path)

    @rx.event
    def offer(self, reason: str, size_bytes: int) -> Any:
        """A message was refused as too large: offer a file, or say why not even that."""
        if not thread_service.attachable(int(size_bytes)):
            self._clear()
            limit = thread_service.MAX_FILE_BYTES // 1_000_000
            return rx.toast.error(
                f"{reason} It is also over the {limit} MB an attached file may hold."
            )
        name = thread_service.next_pasted_name(root(), self._owner(), self._thread())
        if not name:
            return rx.toast.error(reason)
        self.reason, self.file_name, self.error = reason, name, ""
        return None

    def _clear(self) -> None:
        self.reason = self.file_name = self.error = ""

    @rx.event
    def dismiss(self) -> None:
        self._clear()

    @rx.event
    def accept(self) -> Any:
        return rx.call_script(_READ_COMPOSER, callback=PasteOfferState.attach_text)

    @rx.event
    def attach_text(self, text: Any) -> Any:
        try:
            path = thread_service.attach_pasted(
                root(), self._owner(), self._thread(), str(text or "")
            )
        except thread_service.AttachmentRefused as refused:
            self.error = f"Nothing attached: {refused}"
            return None
        self._clear()
        return rx.call_script(_SEND_INSTEAD % json.dumps(thread_service.pasted_message(path)))
