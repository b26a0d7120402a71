"""The user's settings (``services.conversation.threads.user_settings``): read on every page, so every
device of the user shows them; saved from the settings dialog."""

from __future__ import annotations

import reflex as rx

from chat_app.root import root
from chat_app.services.conversation import threads as thread_service
from chat_app.states.identity import IdentityState

__all__ = ["SettingsState"]


class SettingsState(IdentityState):
    theme: str = "system"
    enter_sends: bool = True
    default_assistant_id: str = ""
    density: str = "comfortable"
    error: str = ""

    def _show(self, view: thread_service.SettingsView) -> None:
        self.theme, self.enter_sends = view.theme, view.enter_sends
        self.default_assistant_id, self.density = view.default_assistant_id, view.density

    @rx.event
    def load(self) -> None:
        self._show(thread_service.read_settings(root(), self._owner()))

    @rx.event
    def save(self, form: dict):
        try:
            saved = thread_service.save_settings(root(), self._owner(), form)
        except thread_service.SettingsRefused as refused:
            self.error = str(refused)
            return None
        self.error = ""
        self._show(saved)
        return rx.toast("Settings saved.", id="settings")
