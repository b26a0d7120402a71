"""The chat list's "Import a session" dialog: one agent session file becomes a read-only chat."""

import reflex as rx

from chat_app.states.import_state import IMPORT_UPLOAD_ID, ImportState

_FORMATS = (
    "Claude Code (.jsonl from ~/.claude/projects), Codex CLI rollouts (.jsonl), "
    "aider (.aider.chat.history.md), SWE-agent (.traj) or OpenAI chat JSON."
)


def import_dialog() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.trigger(
            rx.button(
                rx.icon("upload", size=14),
                "Import a session",
                variant="soft",
                color_scheme="gray",
                width="100%",
                id="import-session-open",
            ),
        ),
        rx.dialog.content(
            rx.dialog.title("Import a session"),
            rx.dialog.description(
                "Open another agent's session as a read-only chat: its messages, tool calls and "
                "its own compactions. " + _FORMATS,
                size="2",
            ),
            rx.upload.root(
                rx.vstack(
                    rx.button(
                        rx.icon("file-up", size=14),
                        "Choose a file",
                        type="button",
                        id="import-session-choose",
                    ),
                    rx.text("or drop it here", size="1", color_scheme="gray"),
                    align="center",
                    spacing="2",
                ),
                id=IMPORT_UPLOAD_ID,
                multiple=False,
                max_files=1,
                on_drop=ImportState.upload(rx.upload_files(upload_id=IMPORT_UPLOAD_ID)),
                on_drop_rejected=ImportState.rejected,
                class_name="baton-import-drop",
            ),
            rx.cond(
                ImportState.importing,
                rx.hstack(rx.spinner(size="1"), rx.text("Importing…", size="2")),
            ),
            rx.cond(
                ImportState.import_error != "",
                rx.callout(
                    ImportState.import_error,
                    icon="triangle-alert",
                    color_scheme="red",
                    size="1",
                    id="import-session-error",
                ),
            ),
            rx.flex(
                rx.dialog.close(rx.button("Close", variant="soft", color_scheme="gray")),
                justify="end",
                margin_top="1em",
            ),
        ),
    )
