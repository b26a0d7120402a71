import reflex as rx

from chat_app.states.chat import ChatState
from chat_app.states.import_state import ReplayState


def regenerate_button() -> rx.Component:
    """Under the timeline, while the chat is idle: answer the last message again (the
    earlier reply stays, dimmed, and can be chosen back)."""
    return rx.cond(
        (ChatState.activity == "idle")
        & ChatState.ends_with_reply
        & ~ChatState.has_later
        & ~ReplayState.imported,
        rx.button(
            rx.icon("refresh-cw", size=14),
            "Regenerate reply",
            on_click=ChatState.regenerate,
            variant="ghost",
            size="1",
            color_scheme="gray",
            align_self="start",
            id="regenerate",
        ),
    )
