"""A thread's workspace for its owner: attach files to it, list it, download a file or a zip.

The workspace is the thread's files in the store (the agent's ``read_file``/``write_file``
see the same). Attachments are text and code only, at most :data:`MAX_FILES` files of
:data:`MAX_FILE_BYTES` each, checked all together before anything is written, and written in
one transaction: a refused attachment leaves the workspace as it was.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from agent_core import ToolInputError
from agent_core.storage import base_name, portable_name, portable_names, workspace_path
from agent_core.validation import sanitize_text
from chat_app.errors import Refused
from chat_app.services.conversation.threads.chats import owned_thread
from chat_app.services.runtime.backend import Backend

__all__ = [
    "MAX_FILES",
    "MAX_FILE_BYTES",
    "AttachmentRefused",
    "WorkspaceFile",
    "check_attachments",
    "too_many_files",
    "attach_files",
    "attached_line",
    "list_files",
    "read_file",
    "download_name",
    "workspace_zip",
]

MAX_FILES = 5
MAX_FILE_BYTES = 1_000_000


class AttachmentRefused(Refused):
    """The files cannot be attached; the message says which and why. Nothing was written."""

    default_code = "attachment_refused"


class WorkspaceFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str
    size: int
    """Bytes of the file's UTF-8 text."""


def _text(name: str, data: bytes) -> str:
    if b"\x00" in data:
        raise AttachmentRefused(
            f"{name} is not a text file (it holds binary data); attach text or code files only.",
            code="not_text",
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise AttachmentRefused(
            f"{name} is not UTF-8 text; attach text or code files only.", code="not_text"
        ) from None
    if sanitize_text(text) != text:
        raise AttachmentRefused(
            f"{name} holds characters that are not text; attach text or code files only.",
            code="not_text",
        )
    return text


def too_many_files(count: int) -> str:
    """The one sentence for a choice of more files than may be attached at a time."""
    return f"{count} files chosen; attach at most {MAX_FILES} at a time."


def check_attachments(files: Sequence[tuple[str, bytes]]) -> dict[str, str]:
    """The files as workspace paths and texts, or :class:`AttachmentRefused` (pure)."""
    if not files:
        raise AttachmentRefused("No file was chosen.", code="no_file")
    if len(files) > MAX_FILES:
        raise AttachmentRefused(too_many_files(len(files)), code="too_many_files")
    checked: dict[str, str] = {}
    for name, data in files:
        shown = base_name(name) or name
        if len(data) > MAX_FILE_BYTES:
            raise AttachmentRefused(
                f"{shown} is {len(data) / 1_000_000:.1f} MB; a file may be at most "
                f"{MAX_FILE_BYTES // 1_000_000} MB.",
                code="file_too_large",
            )
        try:
            path = workspace_path(shown)
        except ToolInputError as exc:
            raise AttachmentRefused(f"{shown}: {exc}.", code="bad_path") from None
        checked[path] = _text(shown, data)
    return checked


def attached_line(paths: Sequence[str]) -> str:
    """What the message says about its attachments: ``Attached: a.py, b.txt``."""
    return "Attached: " + ", ".join(paths)


def attach_files(
    app: Backend, owner: str, thread_id: str, files: Sequence[tuple[str, bytes]]
) -> list[str]:
    """Write ``(name, data)`` files into the owner's thread; returns their workspace paths."""
    if owned_thread(app, owner, thread_id) is None:
        raise AttachmentRefused("This chat does not exist.", code="chat_gone")
    checked = check_attachments(files)
    app.store.apply_file_changes(thread_id, written=checked, deleted=[])
    return list(checked)


def list_files(app: Backend, owner: str, thread_id: str) -> list[WorkspaceFile]:
    """The thread's files, by path; empty for a thread the owner does not have."""
    if owned_thread(app, owner, thread_id) is None:
        return []
    store = app.store
    found = []
    for path in sorted(store.list_files(thread_id)):
        content = store.read_file(thread_id, path)
        if content is not None:
            found.append(WorkspaceFile(path=path, size=len(content.encode("utf-8"))))
    return found


def read_file(app: Backend, owner: str, thread_id: str, path: str) -> str | None:
    if owned_thread(app, owner, thread_id) is None:
        return None
    return app.store.read_file(thread_id, path)


def download_name(path: str) -> str:
    """The file name a single download is saved under: the last segment of the path's
    portable name, so no stored name (``..\\..\\evil.txt``) reaches the browser as it is."""
    return portable_name(path).rsplit("/", 1)[-1]


def workspace_zip(app: Backend, owner: str, thread_id: str) -> bytes | None:
    """The whole workspace as a zip, under portable names (the paths themselves, but for a
    name stored before the path rule, see :func:`agent_core.storage._workspace.portable_name`), so
    no extractor writes outside its folder; None for a foreign thread."""
    if owned_thread(app, owner, thread_id) is None:
        return None
    store = app.store
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path, name in portable_names(store.list_files(thread_id)).items():
            content = store.read_file(thread_id, path)
            if content is not None:
                archive.writestr(name, content)
    return buffer.getvalue()
