import reflex as rx


def not_found() -> rx.Component:
    """Shown for a thread that does not exist or belongs to someone else (no difference shown)."""
    return rx.center(
        rx.vstack(
            rx.icon("message-square-off", size=32),
            rx.heading("Chat not found", size="5"),
            rx.text("This chat does not exist, or it is not yours.", color_scheme="gray"),
            rx.link(rx.button("Back to your chats", variant="soft"), href="/"),
            align="center",
            spacing="3",
            id="not-found",
        ),
        padding_y="6em",
        width="100%",
    )
