import reflex as rx

from chat_app.components.safe_markdown import safe_markdown
from chat_app.states.chat import ChatState
from chat_app.states.reset_control import ResetControlState
from chat_app.states.stream_pieces import is_streaming, streamed_text


def streaming_bubble() -> rx.Component:
    """The assistant message being written; replaced by the finished item when it arrives."""
    return rx.cond(
        is_streaming(ChatState),
        rx.flex(
            rx.box(
                safe_markdown(streamed_text(ChatState)),
                class_name="baton-bubble baton-assistant baton-streaming",
                id="baton-streaming",
            ),
            width="100%",
            justify="start",
        ),
        rx.cond(
            # While a handoff waits for review nothing runs: a message sent then is queued.
            ChatState.sending & ~ChatState.resetting & (ResetControlState.review_session == 0),
            rx.hstack(
                rx.spinner(size="1"),
                rx.text("Thinking…", size="1", color_scheme="gray"),
                class_name="baton-thinking",
            ),
        ),
    )
