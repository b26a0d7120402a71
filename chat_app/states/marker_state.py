"""Undo a compaction or mask from its timeline marker, or a /handoff from its divider;
expand a marker to read the originals.

Thin: ``services.conversation.threads.undo`` decides and acts, ``services.conversation.threads.markers`` reads the originals (only when
a marker is opened, at most ``MAX_ORIGINALS``). After an undo the open chat reloads its
newest window, so the timeline shows the undo's note and the meter the restored context.
"""

from __future__ import annotations

from collections.abc import Callable

import reflex as rx

from chat_app.root import root
from chat_app.services.conversation import threads as thread_service
from chat_app.services.conversation.threads import UndoRefused, undo_handoff, undo_marker
from chat_app.states.chat import ChatState
from chat_app.states.identity import IdentityState
from chat_app.states.marker_rows import OriginalRow, original_row

__all__ = ["MarkerState"]


class MarkerState(IdentityState):
    open_key: str = ""
    """The marker whose originals are shown (one at a time, so the page stays light)."""
    originals: list[OriginalRow] = []
    originals_note: str = ""

    @rx.event
    async def toggle_originals(self, key: str):
        if self.open_key == key:
            self.open_key, self.originals, self.originals_note = "", [], ""
            return None
        chat = await self.get_state(ChatState)
        view = (
            thread_service.marker_originals(root(), self._owner(), chat.thread_key, key)
            if chat.thread_key
            else None
        )
        if view is None:
            return rx.toast.error("The messages behind this note are not available.")
        self.open_key = key
        self.originals = [original_row(item) for item in view.items]
        self.originals_note = view.note
        return None

    @rx.event
    async def undo(self, key: str):
        """Undo the compaction or mask behind marker ``key``."""
        if self.open_key == key:
            self.open_key, self.originals, self.originals_note = "", [], ""
        return await self._undo(lambda owner, thread_id: undo_marker(root(), owner, thread_id, key))

    @rx.event
    async def undo_handoff(self, session_number: int):
        """Undo the /handoff that opened session ``session_number``."""
        return await self._undo(
            lambda owner, thread_id: undo_handoff(root(), owner, thread_id, session_number)
        )

    async def _undo(self, act: Callable[[str, str], str]):
        chat = await self.get_state(ChatState)
        thread_id = chat.thread_key
        if not thread_id:
            return None
        if chat.sending or await root().live.is_running(thread_id):
            return rx.toast.warning("The agent is working; undo once it has stopped.")
        try:
            note = act(self._owner(), thread_id)
        except UndoRefused as refused:
            return rx.toast.error(str(refused))
        await root().live.resync(thread_id)  # the chat's other tabs show the undo too
        # The newest window again: the timeline, the chips and the meter as now stored.
        return [chat._show_newest(), rx.toast.success(note)]
