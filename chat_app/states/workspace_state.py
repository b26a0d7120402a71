"""State of the chat's workspace: attaching files from the composer and the files panel.

Attaching writes the files into the thread's workspace (all or nothing) and adds the line
"Attached: a.py, b.txt" to the composer; the message itself is sent the ordinary way, through
the outbox, so a failed attachment sends nothing and leaves the typed text alone.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import reflex as rx

from chat_app.root import root
from chat_app.services.conversation import threads as thread_service
from chat_app.states.identity import IdentityState

__all__ = ["WorkspaceState", "WorkspaceFileRow", "ATTACH_UPLOAD_ID"]

ATTACH_UPLOAD_ID = "attach"

# Appends a line to the composer's (uncontrolled) text area through the native setter, so
# React sees the change like typing and the draft handler runs.
_APPEND_TO_COMPOSER = """((line) => {
  const box = document.getElementById("composer-input");
  if (!box) return;
  const setValue = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value").set;
  const kept = box.value.replace(/\\s+$/, "");
  setValue.call(box, kept ? kept + "\\n\\n" + line : line);
  box.dispatchEvent(new Event("input", {bubbles: true}));
  box.focus();
})(%s)"""

_REJECTIONS = {
    "file-too-large": f"larger than {thread_service.MAX_FILE_BYTES // 1_000_000} MB",
}


@dataclasses.dataclass
class WorkspaceFileRow:
    path: str = ""
    size: str = ""


def refusal_text(rejections: list[str]) -> str:
    """What the composer says about files the browser refused (too large, too many): one
    sentence per reason, naming its files. Too many files is one sentence with the limit (the
    browser then refuses every file chosen, each as "too many")."""
    refused = [
        (name or "a file", codes.split(","))
        for name, _, codes in (str(r).rpartition("|") for r in rejections)
    ]
    if any("too-many-files" in codes for _, codes in refused):
        return "Nothing attached: " + thread_service.too_many_files(len(refused))
    by_reason: dict[str, list[str]] = {}
    for name, codes in refused:
        why = next((_REJECTIONS[c] for c in codes if c in _REJECTIONS), "")
        by_reason.setdefault(why, []).append(name)
    sentences = []
    for why, names in by_reason.items():
        several = len(names) > 1
        listed = ", ".join(names[:-1]) + " and " + names[-1] if several else names[0]
        if why:
            sentences.append(f"{listed} {'are' if several else 'is'} {why}")
        else:
            sentences.append(f"{listed} cannot be attached")
    return "Nothing attached: " + "; ".join(sentences) + "."


def _thread_id(path: str) -> str:
    parts = [part for part in path.split("/") if part]
    return parts[-1] if len(parts) >= 2 and parts[-2] == "t" else ""


def _size(size: int) -> str:
    return f"{size:,} B" if size < 10_000 else f"{size / 1000:,.0f} kB"


class WorkspaceState(IdentityState):
    files: list[WorkspaceFileRow] = []
    attach_error: str = ""

    def _thread(self) -> str:
        return _thread_id(self.router.url.path)

    def _refresh(self) -> None:
        self.files = [
            WorkspaceFileRow(path=f.path, size=_size(f.size))
            for f in thread_service.list_files(root(), self._owner(), self._thread())
        ]

    @rx.event
    async def attach(self, files: list[rx.UploadFile]) -> Any:
        if not files:
            # The browser refused every file: it calls this with none and ``rejected`` with
            # the reasons, in either order; the reasons are what the user should read.
            return None
        # Read one byte past the limit: enough to refuse a larger file without holding it.
        chosen = [
            ((f.name or "upload"), await f.read(thread_service.MAX_FILE_BYTES + 1)) for f in files
        ]
        try:
            paths = thread_service.attach_files(root(), self._owner(), self._thread(), chosen)
        except thread_service.AttachmentRefused as refused:
            self.attach_error = f"Nothing attached: {refused}"
            return None
        self.attach_error = ""
        self._refresh()
        line = thread_service.attached_line(paths)
        return [
            rx.call_script(_APPEND_TO_COMPOSER % json.dumps(line)),
            rx.clear_selected_files(ATTACH_UPLOAD_ID),
        ]

    @rx.event
    def rejected(self, rejections: list[str]) -> None:
        """Files the browser refused before sending them, as ``name|code,code``."""
        self.attach_error = refusal_text(rejections)

    @rx.event
    def dismiss_error(self) -> None:
        self.attach_error = ""

    @rx.event
    def opened(self, is_open: bool) -> None:
        if is_open:
            self._refresh()

    @rx.event
    def download(self, path: str) -> Any:
        content = thread_service.read_file(root(), self._owner(), self._thread(), path)
        if content is None:
            return rx.toast.error(f"{path} is no longer in the workspace.")
        return rx.download(data=content, filename=thread_service.download_name(path))

    @rx.event
    def download_zip(self) -> Any:
        data = thread_service.workspace_zip(root(), self._owner(), self._thread())
        if data is None:
            return rx.toast.error("This chat does not exist.")
        return rx.download(data=data, filename="workspace.zip", mime_type="application/zip")
