import reflex as rx

from chat_app.components.settings_dialog import settings_applied
from chat_app.components.sidebar import sidebar


def app_layout(*main: rx.Component) -> rx.Component:
    """The chat list beside the page's content; on a phone the list is a drawer over it."""
    return rx.box(
        sidebar(),
        rx.box(class_name="baton-overlay", aria_hidden="true"),
        rx.el.main(*main, class_name="baton-main"),
        settings_applied(),
        class_name="baton-layout",
    )
