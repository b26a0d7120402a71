import reflex as rx

from chat_app.states.fork_state import ForkState


def fork_origin() -> rx.Component:
    """On a fork: which chat it was forked from, as a link back."""
    return rx.cond(
        ForkState.origin_id != "",
        rx.hstack(
            rx.icon("git-branch", size=12),
            rx.text("Forked from", size="1", color_scheme="gray"),
            rx.link(
                ForkState.origin_title,
                href="/t/" + ForkState.origin_id,
                size="1",
                id="fork-origin",
                class_name="baton-ellipsis",
            ),
            align="center",
            spacing="1",
            min_width="0",
        ),
    )
