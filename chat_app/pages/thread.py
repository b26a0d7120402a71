import reflex as rx

from chat_app.components.app_layout import app_layout
from chat_app.components.assistant_problem import assistant_problem
from chat_app.components.chat_header import chat_header
from chat_app.components.commands_notice import commands_notice
from chat_app.components.composer import composer
from chat_app.components.fork_dialog import fork_dialog
from chat_app.components.handoff_review import handoff_review
from chat_app.components.not_found import not_found
from chat_app.components.replay_panel import replay_panel
from chat_app.components.reset_notice import reset_notice
from chat_app.components.sidebar_toggle import sidebar_toggle
from chat_app.components.timeline import timeline
from chat_app.states.chat import ChatState
from chat_app.states.import_state import ReplayState


def thread_page() -> rx.Component:
    """`/t/[thread_id]`: one chat beside the chat list, or the not-found state."""
    return app_layout(
        rx.cond(
            ChatState.found,
            rx.vstack(
                chat_header(),
                rx.box(timeline(), class_name="baton-page baton-chat-body"),
                rx.box(
                    rx.cond(
                        ReplayState.imported,
                        replay_panel(),
                        rx.fragment(
                            assistant_problem(),
                            commands_notice(),
                            reset_notice(),
                            handoff_review(),
                            composer(),
                        ),
                    ),
                    class_name="baton-composer-dock",
                ),
                fork_dialog(),
                spacing="0",
                width="100%",
                min_height="100vh",
            ),
            rx.box(
                rx.hstack(sidebar_toggle(), class_name="baton-sticky-header"),
                not_found(),
                class_name="baton-page",
            ),
        ),
    )
