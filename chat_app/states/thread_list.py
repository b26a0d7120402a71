"""The thread list page: search, create, rename, delete. Thin: every action is a service call."""

from __future__ import annotations

import asyncio
import dataclasses

import reflex as rx

from chat_app.root import root
from chat_app.services.conversation import threads as thread_service
from chat_app.states.chat import ChatState
from chat_app.states.connection import connected_here
from chat_app.states.identity import IdentityState
from chat_app.states.rows import ThreadRow, thread_row

__all__ = ["ThreadListState", "AssistantOption"]

WATCH_CHECK_SECONDS = 10.0  # how often an idle list watcher checks its tab is still here


@dataclasses.dataclass
class AssistantOption:
    id: str = ""
    label: str = ""


class ThreadListState(IdentityState):
    threads: list[ThreadRow] = []
    search: str = ""
    loaded: bool = False
    editing_id: str = ""
    editing_title: str = ""
    assistants: list[AssistantOption] = []
    assistant_id: str = ""
    _watch_generation: int = 0

    def _refresh(self) -> None:
        summaries = thread_service.list_threads(root(), self._owner(), self.search.strip())
        self.threads = [thread_row(s) for s in summaries]
        self.loaded = True

    @rx.event
    def on_load(self):
        self.editing_id = ""
        self._refresh()
        choices = thread_service.list_assistant_choices(root())
        self.assistants = [
            AssistantOption(id=c.id, label=f"{c.name} · {c.model_label}") for c in choices
        ]
        if self.assistant_id not in {c.id for c in choices}:
            self.assistant_id = choices[0].id if choices else ""
        # Each load watches anew (the tab may have come back on another worker); the
        # watcher of an earlier load ends at its next wake.
        self._watch_generation += 1
        return ThreadListState.watch_list(self._watch_generation)

    @rx.event(background=True)
    async def watch_list(self, generation: int):
        """Read the list again whenever another tab of this owner (any worker) made,
        renamed or deleted a chat, for as long as this tab stays connected here."""
        async with self:
            owner, token = self._owner(), self.router.session.client_token
        async with thread_service.watch_list(root(), owner) as queue:
            while True:
                try:
                    await asyncio.wait_for(queue.get(), WATCH_CHECK_SECONDS)
                except TimeoutError:
                    if not connected_here(token):
                        return
                    async with self:
                        if self._watch_generation != generation:
                            return
                    continue
                while not queue.empty():  # a burst of changes: one read
                    queue.get_nowait()
                async with self:
                    if self._watch_generation != generation:
                        return
                    if self.loaded and not self.editing_id:
                        self._refresh()

    @rx.event
    def refresh(self) -> None:
        """Read the list again: the tab came back into view, and chats may have been made,
        renamed or deleted in another tab or on another device meanwhile."""
        if self.loaded and not self.editing_id:
            self._refresh()

    @rx.event
    def set_assistant(self, assistant_id: str) -> None:
        self.assistant_id = assistant_id

    @rx.event
    def set_search(self, value: str) -> None:
        self.search = value
        self._refresh()

    @rx.var
    def chosen_assistant(self) -> str:
        """ "name · model" of the assistant a new chat starts with."""
        return next((a.label for a in self.assistants if a.id == self.assistant_id), "")

    @rx.event
    def new_chat(self):
        # A draft: the chat is stored with its first message (states/new_chat.py).
        return [
            rx.redirect("/"),
            rx.call_script("window.batonLayout && window.batonLayout.focusComposer()"),
        ]

    @rx.event
    def start_rename(self, thread_id: str, title: str) -> None:
        self.editing_id = thread_id
        self.editing_title = title

    @rx.event
    def set_editing_title(self, value: str) -> None:
        self.editing_title = value

    @rx.event
    def cancel_rename(self) -> None:
        self.editing_id = ""

    @rx.event
    async def save_rename(self, _form: dict | None = None):
        title = self.editing_title.strip()
        if not self.editing_id:
            return None
        if not title:  # the field stays open to be fixed
            return rx.toast.error(
                "A chat needs a title: type one, or press Esc to keep the old one."
            )
        renamed = thread_service.rename_thread(root(), self._owner(), self.editing_id, title)
        self.editing_id = ""
        self._refresh()
        if renamed is None:
            return rx.toast.error("That chat no longer exists.")
        chat = await self.get_state(ChatState)
        if chat.thread_key == renamed.id:  # the open chat: its header and the tab's title
            chat.title = renamed.title
        await thread_service.announce_title(root(), renamed.id, renamed.title)  # its other tabs
        await thread_service.announce(root(), self._owner())  # and every tab's list
        return None

    @rx.event
    async def delete(self, thread_id: str):
        deleted = thread_service.delete_thread(root(), self._owner(), thread_id)
        self._refresh()
        if not deleted:
            return None
        await thread_service.announce(root(), self._owner())
        if (await self.get_state(ChatState)).thread_key == thread_id:  # the open chat: leave it
            return [rx.toast("Chat deleted"), rx.redirect("/")]
        return rx.toast("Chat deleted")
