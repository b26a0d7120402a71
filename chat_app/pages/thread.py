import reflex as rx

from chat_app.components.app_header import app_header
from chat_app.components.assistant_problem import assistant_problem
from chat_app.components.chat_header import chat_header
from chat_app.components.commands_notice import commands_notice
from chat_app.components.composer import composer
from chat_app.components.fork_dialog import fork_dialog
from chat_app.components.not_found import not_found
from chat_app.components.timeline import timeline
from chat_app.states.chat import ChatState


def thread_page() -> rx.Component:
    """`/t/[thread_id]`: one chat, or the not-found state."""
    return rx.box(
        rx.cond(
            ChatState.found,
            rx.vstack(
                chat_header(),
                rx.box(timeline(), class_name="baton-page baton-chat-body"),
                rx.box(assistant_problem(), commands_notice(), composer(),
                       class_name="baton-composer-dock"),
                fork_dialog(),
                spacing="0",
                width="100%",
                min_height="100vh",
            ),
            rx.box(app_header(), not_found(), class_name="baton-page"),
        ),
        class_name="baton-shell",
    )
