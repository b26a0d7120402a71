"""Export the open chat as Markdown or JSON (a download built on the server)."""

from __future__ import annotations

from typing import Any

import reflex as rx

from chat_app.root import root
from chat_app.services.conversation import threads as thread_service
from chat_app.services.conversation.threads import owned_thread
from chat_app.states.identity import IdentityState

__all__ = ["ExportState"]


def _thread_id(path: str) -> str:
    parts = [part for part in path.split("/") if part]
    return parts[-1] if len(parts) >= 2 and parts[-2] == "t" else ""


class ExportState(IdentityState):
    @rx.event
    def download(self, kind: str) -> Any:
        """``kind`` ``markdown`` or ``json``: the whole chat as one file."""
        thread_id = _thread_id(self.router.url.path)
        build, extension, mime = (
            (thread_service.export_json, "json", "application/json")
            if kind == "json"
            else (thread_service.export_markdown, "md", "text/markdown")
        )
        app = root()
        try:
            data = build(app, self._owner(), thread_id)
        except thread_service.ExportTooLarge as exc:
            return rx.toast.error(str(exc))
        thread = owned_thread(app, self._owner(), thread_id)
        if data is None or thread is None:
            return rx.toast.error("This chat does not exist.")
        return rx.download(
            data=data,
            filename=thread_service.export_filename(thread.title, extension),
            mime_type=f"{mime};charset=utf-8",
        )
