import reflex as rx

from chat_app.states.new_chat import NewChatState


def new_chat_composer() -> rx.Component:
    """The draft's message box: the first message creates the chat.

    The same element ids as the chat's composer, so /baton-outbox.js keeps a copy of the
    text until the server has stored it, and the shortcuts find it.
    """
    return rx.form(
        rx.hstack(
            rx.text_area(
                placeholder="Message Baton (Enter to send, Shift+Enter for a new line)",
                enter_key_submit=True,
                auto_height=True,
                rows="1",
                name="message",
                id="composer-input",
                flex="1",
                class_name="baton-composer-input",
                aria_label="Message",
            ),
            rx.el.input(type="hidden", name="client_id", default_value="", id="composer-client-id"),
            # Pressed by /baton-outbox.js when the first message got no acknowledgement.
            rx.el.button(type="button", hidden=True, id="outbox-retry",
                         on_click=NewChatState.retry_unsent),
            rx.icon_button(rx.icon("send-horizontal", size=16), type="submit", id="send-button",
                           aria_label="Send", title="Send (Enter)"),
            align="end",
            width="100%",
        ),
        on_submit=NewChatState.start,
        reset_on_submit=False,
        width="100%",
        class_name="baton-composer",
        data_activity="idle",
    )
