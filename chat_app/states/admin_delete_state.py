"""Deleting an assistant on `/admin`: its chats move to another assistant the admin picks.

Holds no credential: the grant and the selected assistant are read from :class:`AdminState`.
"""

from __future__ import annotations

import reflex as rx

from chat_app.root import root
from chat_app.services import admin as admin_service
from chat_app.states.admin_state import AdminState, AssistantRow

__all__ = ["AdminDeleteState"]


class AdminDeleteState(rx.State):
    move_to: str = ""
    chats: int = 0
    targets: list[AssistantRow] = []
    error: str = ""

    @rx.event
    async def prepare(self, opened: bool = True) -> None:
        """The dialog opens: where the chats can go, and how many there are."""
        if not opened:
            return
        admin = await self.get_state(AdminState)
        self.error = ""
        self.targets = [a for a in admin.assistants if a.id != admin.selected_id]
        if self.move_to not in {a.id for a in self.targets}:
            self.move_to = self.targets[0].id if self.targets else ""
        try:
            self.chats = admin_service.chats_on(root(), admin._grant, admin.selected_id)
        except admin_service.AdminRefused as refused:
            admin.signed_in, admin._grant, admin.error = False, "", str(refused)

    @rx.event
    def set_move_to(self, assistant_id: str) -> None:
        self.move_to = assistant_id

    @rx.event
    async def confirm(self):
        admin = await self.get_state(AdminState)
        try:
            moved = admin_service.delete_assistant(
                root(), admin._grant, admin.selected_id, self.move_to
            )
        except admin_service.AdminRefused as refused:
            admin.signed_in, admin._grant, admin.error = False, "", str(refused)
            return None
        except admin_service.AssistantInUse as refused:
            self.error = str(refused)
            return None
        target = next((a.name for a in self.targets if a.id == self.move_to), "another assistant")
        admin.selected_id = ""
        admin._load()
        admin.notice = (
            f"Assistant deleted; {moved} chat{'s' if moved != 1 else ''} moved to {target}."
        )
        return None
