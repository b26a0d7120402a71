"""The composer's paperclip: choose text or code files to attach to the next message."""

from typing import Any

import reflex as rx
from reflex.vars import ArrayVar, ObjectVar

from chat_app.services.conversation.threads import MAX_FILE_BYTES, MAX_FILES
from chat_app.states.workspace_state import ATTACH_UPLOAD_ID, WorkspaceState


def _refused(rejected: rx.Var) -> Any:
    # The browser's File objects do not survive serialization: send "name|code,code" strings.
    def one(record: rx.Var) -> rx.Var:
        record = record.to(ObjectVar, dict[str, dict[str, Any]])
        file = record["file"].to(ObjectVar, dict[str, Any])
        errors = record["errors"].to(ArrayVar, list[dict[str, Any]])
        return f"{file['name']}|{errors.map(lambda error: error['code']).join(',')}"  # type: ignore[return-value]  # noqa: FURB118

    return WorkspaceState.rejected(rejected.to(ArrayVar).map(one))


def attach_button() -> rx.Component:
    """Chosen files go straight into the workspace; the composer then names them."""
    return rx.upload.root(
        rx.icon_button(
            rx.icon("paperclip", size=16),
            type="button",
            variant="soft",
            id="attach-button",
            aria_label="Attach files",
            title=f"Attach text or code files (at most {MAX_FILES}, {MAX_FILE_BYTES // 1_000_000} MB each)",
        ),
        id=ATTACH_UPLOAD_ID,
        multiple=True,
        max_files=MAX_FILES,
        max_size=MAX_FILE_BYTES,
        no_drag=True,
        on_drop=WorkspaceState.attach(rx.upload_files(upload_id=ATTACH_UPLOAD_ID)),
        on_drop_rejected=_refused,
    )
