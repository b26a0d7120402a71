import reflex as rx

from chat_app.components.attach_button import attach_button
from chat_app.components.message_box import message_box
from chat_app.components.paste_offer import paste_offer
from chat_app.components.workspace_panel import workspace_panel
from chat_app.states.chat import ChatState
from chat_app.states.reset_control import ResetControlState
from chat_app.states.workspace_state import WorkspaceState


def _stop_button() -> rx.Component:
    # While a handoff waits for review nothing runs (a message sent then is queued).
    busy = (ChatState.sending & (ResetControlState.review_session == 0)) | (
        ChatState.handoff_running
    )
    return rx.cond(
        busy,
        rx.button(
            rx.icon("square", size=14),
            rx.cond(ChatState.handoff_running, "Cancel handoff", "Stop"),
            type="button",
            on_click=ChatState.stop,
            title=rx.cond(ChatState.handoff_running, "Cancel the handoff (Esc)", "Stop (Esc)"),
            color_scheme="tomato",
            variant="soft",
            id="stop-button",
        ),
    )


def composer() -> rx.Component:
    """Message box: Enter sends, Shift+Enter adds a line, `/handoff [focus]` runs a handoff."""
    return rx.vstack(
        rx.cond(
            ChatState.command_hint != "",
            rx.text(ChatState.command_hint, size="1", color_scheme="gray", id="command-hint"),
        ),
        rx.cond(
            ChatState.notice != "",
            rx.text(ChatState.notice, size="1", color_scheme="amber", id="composer-notice"),
        ),
        paste_offer(),
        rx.cond(
            WorkspaceState.attach_error != "",
            rx.hstack(
                rx.text(
                    WorkspaceState.attach_error, size="1", color_scheme="red", id="attach-error"
                ),
                rx.icon_button(
                    rx.icon("x", size=12),
                    on_click=WorkspaceState.dismiss_error,
                    size="1",
                    variant="ghost",
                    aria_label="Dismiss",
                ),
                align="center",
            ),
        ),
        rx.form(
            rx.hstack(
                attach_button(),
                workspace_panel(),
                *message_box(
                    ChatState.composer_placeholder,
                    ChatState.retry_unsent,
                    on_change=ChatState.set_draft,
                ),
                _stop_button(),
                rx.icon_button(
                    rx.icon("send-horizontal", size=16),
                    type="submit",
                    id="send-button",
                    aria_label="Send",
                    title="Send (Enter)",
                ),
                align="end",
                width="100%",
            ),
            on_submit=ChatState.submit,
            # Kept until the server says it stored the message (/baton-outbox.js empties it);
            # a second Enter meanwhile is ignored there.
            reset_on_submit=False,
            width="100%",
            # The chat this form sends to: /baton-drafts.js gives the box a chat's draft only
            # once the form is that chat's.
            data_thread=ChatState.thread_key,
        ),
        spacing="1",
        width="100%",
        class_name="baton-composer",
        data_activity=ChatState.activity,
        # The chat whose reset controls (the warn notice, a review) are read: they load by
        # their own event after the chat's, so a page is whole once both name its chat.
        data_controls=ResetControlState.thread_key,
    )
