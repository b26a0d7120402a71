"""The draft of a new chat (`/`): nothing is stored until its first message is sent.

The first message goes to ``services.conversation.runs.new_chat.start_chat``, which stores the chat and the
message together; the browser then opens the chat, whose page answers the queued message
(and should the tab close first, the server answers it a few seconds later by itself).
"""

from __future__ import annotations

import asyncio

import reflex as rx

from agent_core import MessageRejected
from chat_app.root import root
from chat_app.services.conversation import runs as run_service
from chat_app.services.conversation import threads as thread_service
from chat_app.services.runtime.send_order import predecessor_prefix
from chat_app.states import scripts
from chat_app.states.chat import ChatState
from chat_app.states.identity import IdentityState
from chat_app.states.settings_state import SettingsState
from chat_app.states.thread_list import ThreadListState

__all__ = ["NewChatState", "focus_composer"]


def focus_composer() -> rx.event.EventSpec:
    return rx.call_script("window.batonLayout && window.batonLayout.focusComposer()")


def _refuse(client_id: str, typed: str, message: str) -> list:
    return [
        scripts.outbox_refused(client_id),
        rx.set_value("composer-input", typed),
        rx.toast.error(message),
    ]


class NewChatState(IdentityState):
    # No chat of this browser has a message yet: the page explains Baton.
    first_visit: bool = False
    # The client id of the message that started a chat from this draft, the chat, and the
    # draft's visit (the composer's `draft` id): a second message sent on the same visit,
    # before the browser opened the chat, goes into it. Kept across on_load, which may run
    # between the two sends (typed before the page had connected); the visit id tells a new
    # visit of the draft from the same one.
    _started: list[str] = []

    @rx.event
    async def on_load(self):
        self.first_visit = not run_service.has_chats(root(), self._owner())
        # A new chat starts with the user's default assistant (their settings), if it is there.
        chosen = (await self.get_state(SettingsState)).default_assistant_id
        lists = await self.get_state(ThreadListState)
        if chosen and chosen in {a.id for a in lists.assistants}:
            lists.assistant_id = chosen
        # No chat is open: the list marks none, and the last chat's watcher ends.
        (await self.get_state(ChatState)).thread_key = ""
        # A first message whose send never reached the server (the outbox kept it) comes
        # back into the composer rather than being lost.
        return [focus_composer(), scripts.outbox_unsent("", NewChatState.restore_unsent)]

    @rx.event
    def restore_unsent(self, unsent: list):
        if not isinstance(unsent, list) or not unsent:
            return None
        entries = [e for e in unsent[-20:] if isinstance(e, dict) and e.get("thread") == ""]
        if not entries:
            return None
        text = str(entries[-1].get("text") or "")
        # Forgotten by the outbox: the text is now in the composer, to send again.
        return [
            *(scripts.outbox_refused(str(e.get("id") or "")) for e in entries),
            rx.set_value("composer-input", text),
            focus_composer(),
        ]

    @rx.event
    def retry_unsent(self):
        """The outbox saw no acknowledgement in time (a send lost in flight): send again."""
        return scripts.outbox_unsent("", NewChatState.resend_unsent)

    @rx.event
    async def resend_unsent(self, unsent: list):
        if not isinstance(unsent, list):
            return None
        entries = [e for e in unsent[-20:] if isinstance(e, dict) and e.get("thread") == ""]
        if not entries:
            return None
        first = entries[0]  # the draft's first message; the chat answers anything after it
        return await self._start(
            str(first.get("text") or ""),
            str(first.get("id") or "")[:64],
            str(first.get("draft") or "")[:64],
        )

    @rx.event
    async def start(self, form: dict):
        """Send the draft's first message: store the chat with it, then open the chat."""
        return await self._start(
            str(form.get("message") or ""),
            str(form.get("client_id") or "")[:64],
            str(form.get("draft") or "")[:64],
        )

    async def _start(self, typed: str, client_id: str, draft: str):
        text = typed.strip()
        if not text:
            return scripts.outbox_refused(client_id)
        command = run_service.parse_command(typed.lstrip("\n"))
        if command is not None and command[0] == "unknown":  # as a chat says it
            return _refuse(
                client_id,
                typed,
                f"/{command[1]} is not a command. Commands: {run_service.COMMANDS}. "
                "To send this as a message, start it with a space.",
            )
        if command is not None:
            return _refuse(
                client_id, typed, "/handoff works in a chat that has begun: send a message first."
            )
        if self._same_visit(client_id, draft):
            return await self._follow_up(self._started[1], typed, text, client_id, draft)
        chosen = (await self.get_state(ThreadListState)).assistant_id or None
        try:
            # Off the event loop: it writes, and a write may wait for SQLite's lock.
            thread_id = await asyncio.to_thread(
                run_service.start_chat,
                root(),
                self._owner(),
                text,
                client_id=client_id or None,
                assistant_id=chosen,
            )
        except MessageRejected as rejected:
            return _refuse(client_id, typed, str(rejected))
        # The chat's page answers the message when it opens; should this tab close before
        # it does, the server answers it anyway.
        run_service.resume_detached(
            root(), self._owner(), thread_id, after=run_service.FIRST_MESSAGE_GRACE_SECONDS
        )
        await thread_service.announce(root(), self._owner())  # the owner's other tabs list it
        if client_id:
            self._started = [client_id, thread_id, draft]
        return [scripts.outbox_accepted(client_id), rx.redirect(f"/t/{thread_id}")]

    def _same_visit(self, client_id: str, draft: str) -> bool:
        """Whether this send follows, on the same visit of the draft, the one that started a
        chat: the message the tab sent just before it is that one (or its follow-up)."""
        if len(self._started) != 3 or not draft or self._started[2] != draft:
            return False
        before = predecessor_prefix(client_id)
        return before is not None and self._started[0].startswith(before)

    async def _follow_up(self, thread_id: str, typed: str, text: str, client_id: str, draft: str):
        try:
            queued = await asyncio.to_thread(
                run_service.follow_up, root(), self._owner(), thread_id, text, client_id
            )
        except MessageRejected as rejected:
            return _refuse(client_id, typed, str(rejected))
        if not queued:
            return _refuse(client_id, typed, "That chat no longer exists.")
        self._started = [client_id, thread_id, draft]
        return [scripts.outbox_accepted(client_id), rx.redirect(f"/t/{thread_id}")]
