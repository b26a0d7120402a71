"""The chat's workspace: its files, a download of each and of all of them as a zip."""

import reflex as rx

from chat_app.states.workspace_state import WorkspaceFileRow, WorkspaceState


def _file(row: rx.Var[WorkspaceFileRow]) -> rx.Component:
    return rx.hstack(
        rx.text(
            row.path, size="2", class_name="baton-ellipsis", flex="1", min_width="0", title=row.path
        ),
        rx.text(row.size, size="1", color_scheme="gray", white_space="nowrap"),
        rx.icon_button(
            rx.icon("download", size=14),
            on_click=WorkspaceState.download(row.path),
            size="1",
            variant="ghost",
            aria_label="Download",
            title="Download",
        ),
        align="center",
        width="100%",
        class_name="workspace-file",
    )


def workspace_panel() -> rx.Component:
    """A button that opens the workspace's file list (read when it opens)."""
    return rx.dialog.root(
        rx.dialog.trigger(
            rx.icon_button(
                rx.icon("folder-open", size=16),
                type="button",
                variant="soft",
                id="workspace-button",
                aria_label="Workspace files",
                title="Workspace files",
            ),
        ),
        rx.dialog.content(
            rx.dialog.title("Workspace"),
            rx.dialog.description("The files of this chat, as the agent sees them.", size="2"),
            rx.vstack(
                rx.cond(
                    WorkspaceState.files.length() > 0,
                    rx.foreach(WorkspaceState.files, _file),
                    rx.text("No files yet.", size="2", color_scheme="gray"),
                ),
                max_height="50vh",
                overflow_y="auto",
                width="100%",
                spacing="1",
                margin_y="0.75em",
            ),
            rx.hstack(
                rx.button(
                    rx.icon("file-archive", size=14),
                    "Download all (.zip)",
                    on_click=WorkspaceState.download_zip,
                    id="workspace-zip",
                    disabled=WorkspaceState.files.length() == 0,
                ),
                rx.dialog.close(rx.button("Close", variant="soft", type="button")),
                justify="end",
                width="100%",
            ),
            id="workspace-panel",
            max_width="36em",
        ),
        on_open_change=WorkspaceState.opened,
    )
