import reflex as rx

from chat_app.components.message_box import message_box
from chat_app.states.new_chat import NewChatState


def new_chat_composer() -> rx.Component:
    """The draft's composer: the first message creates the chat."""
    return rx.form(
        rx.hstack(
            *message_box(
                "Message Baton (Enter to send, Shift+Enter for a new line)",
                NewChatState.retry_unsent,
            ),
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
        on_submit=NewChatState.start,
        reset_on_submit=False,
        width="100%",
        class_name="baton-composer",
        data_activity="idle",
        data_draft="true",  # the outbox names the draft's visit on this form's sends
    )
