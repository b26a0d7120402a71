import reflex as rx

from chat_app.components.assistant_label import assistant_label
from chat_app.components.context_meter import context_meter
from chat_app.components.session_chips import session_chips
from chat_app.components.share_dialog import share_dialog
from chat_app.components.sidebar_toggle import sidebar_toggle
from chat_app.states.chat import ChatState
from chat_app.states.chat_assistant import ChatAssistantState


def chat_header() -> rx.Component:
    """Sticky top of the chat page: title, assistant and model, meter; then the sessions."""
    return rx.vstack(
        rx.hstack(
            sidebar_toggle(),
            rx.vstack(
                rx.text(ChatState.title, weight="medium", class_name="baton-ellipsis", id="thread-title"),
                assistant_label(ChatAssistantState.name, ChatAssistantState.model),
                spacing="0",
                min_width="0",
                flex="1",
            ),
            context_meter(),
            share_dialog(),
            align="center",
            width="100%",
        ),
        session_chips(),
        spacing="2",
        width="100%",
        class_name="baton-sticky-header",
    )
