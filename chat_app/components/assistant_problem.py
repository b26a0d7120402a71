import reflex as rx

from chat_app.states.chat import ChatState


def assistant_problem() -> rx.Component:
    """Why this chat's assistant cannot answer now; typed messages are kept meanwhile."""
    return rx.cond(
        ChatState.problem != "",
        rx.callout(
            rx.text(
                ChatState.problem, " Messages you send are kept and answered once it is fixed."
            ),
            icon="triangle-alert",
            color_scheme="red",
            size="1",
            id="assistant-problem",
            width="100%",
        ),
    )
