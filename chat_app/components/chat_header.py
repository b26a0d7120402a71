import reflex as rx

from chat_app.components.assistant_label import assistant_label
from chat_app.components.context_meter import context_meter
from chat_app.components.export_menu import export_menu
from chat_app.components.fork_origin import fork_origin
from chat_app.components.message_search import message_search
from chat_app.components.session_chips import session_chips
from chat_app.components.share_dialog import share_dialog
from chat_app.components.sidebar_toggle import sidebar_toggle
from chat_app.states.chat import ChatState
from chat_app.states.chat_assistant import ChatAssistantState
from chat_app.states.import_state import ReplayState


def chat_header() -> rx.Component:
    """Sticky top of the chat page: title, assistant and model, meter and the chat's actions;
    then where a fork came from and the session navigator."""
    return rx.vstack(
        rx.hstack(
            sidebar_toggle(),
            rx.vstack(
                rx.text(
                    ChatState.title, weight="medium", class_name="baton-ellipsis", id="thread-title"
                ),
                assistant_label(ChatAssistantState.name, ChatAssistantState.model),
                spacing="0",
                min_width="0",
                flex="1",
                class_name="baton-chat-title",
            ),
            # An imported session ran on another agent's context: no meter of Baton's.
            rx.cond(ReplayState.imported, rx.fragment(), context_meter()),
            share_dialog(),
            message_search(),
            export_menu(),
            align="center",
            width="100%",
            class_name="baton-chat-bar",
        ),
        fork_origin(),
        session_chips(),
        spacing="2",
        width="100%",
        class_name="baton-sticky-header",
    )
