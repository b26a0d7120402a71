import reflex as rx

from chat_app.components.app_layout import app_layout
from chat_app.components.new_chat_composer import new_chat_composer
from chat_app.components.sidebar_toggle import sidebar_toggle
from chat_app.components.welcome import welcome
from chat_app.states.thread_list import ThreadListState


def index_page() -> rx.Component:
    """`/`: a new chat beside the chat list; stored when its first message is sent."""
    return app_layout(
        rx.vstack(
            rx.hstack(
                sidebar_toggle(),
                rx.vstack(
                    rx.text("New chat", weight="medium", id="thread-title"),
                    rx.text(
                        ThreadListState.chosen_assistant,
                        size="1",
                        color_scheme="gray",
                        class_name="baton-ellipsis",
                        id="chat-assistant",
                    ),
                    spacing="0",
                    min_width="0",
                ),
                align="center",
                width="100%",
                class_name="baton-sticky-header",
            ),
            rx.box(welcome(), class_name="baton-page baton-chat-body"),
            rx.box(new_chat_composer(), class_name="baton-composer-dock"),
            spacing="0",
            width="100%",
            min_height="100vh",
        ),
    )
