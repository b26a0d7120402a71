import reflex as rx

from chat_app.components.theme_toggle import theme_toggle


def app_header(*middle: rx.Component) -> rx.Component:
    """Top bar: the Baton home link, whatever the page puts in the middle, the theme toggle."""
    return rx.hstack(
        rx.link(
            rx.hstack(rx.icon("layers", size=18), rx.text("Baton", weight="bold"), spacing="1"),
            href="/",
            underline="none",
            color_scheme="gray",
            high_contrast=True,
        ),
        rx.box(*middle, flex="1", min_width="0"),
        theme_toggle(),
        align="center",
        spacing="3",
        width="100%",
    )
