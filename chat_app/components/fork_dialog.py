import reflex as rx

from chat_app.states.fork_state import ForkState


def fork_dialog() -> rx.Component:
    """Fork from here: edit the message, then send it as the first new message of a copy of
    the chat up to that point (this chat stays as it is)."""
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title("Fork from here"),
            rx.dialog.description(
                "A new chat gets everything before this message (sessions and handoffs "
                "included) and sends your edited text as its next message. This chat is not "
                "changed.",
                size="2",
            ),
            rx.text_area(
                value=ForkState.text,
                on_change=ForkState.set_text,
                id="fork-text",
                rows="6",
                width="100%",
                margin_top="1em",
                aria_label="Edited message",
            ),
            rx.hstack(
                rx.dialog.close(rx.button("Cancel", variant="soft", color_scheme="gray", size="2")),
                rx.button(
                    rx.icon("git-branch", size=14),
                    "Fork and send",
                    on_click=ForkState.fork,
                    size="2",
                    id="fork-send",
                ),
                justify="end",
                spacing="2",
                margin_top="1em",
            ),
        ),
        open=ForkState.dialog_open,
        on_open_change=ForkState.set_open,
    )
