import reflex as rx

from chat_app.components.settings_dialog import settings_dialog
from chat_app.components.shortcuts_help import shortcuts_help
from chat_app.components.theme_toggle import theme_toggle
from chat_app.components.thread_list import thread_list


def sidebar() -> rx.Component:
    """The chat list beside the conversation: a column on a wide screen, a drawer on a phone."""
    return rx.el.aside(
        rx.hstack(
            rx.link(
                rx.hstack(rx.icon("layers", size=18), rx.text("Baton", weight="bold"), spacing="1"),
                href="/",
                underline="none",
                color_scheme="gray",
                high_contrast=True,
            ),
            rx.spacer(),
            rx.icon_button(
                rx.icon("x", size=16),
                variant="ghost",
                color_scheme="gray",
                class_name="baton-drawer-close",
                aria_label="Close the chat list",
            ),
            align="center",
            width="100%",
        ),
        rx.box(thread_list(), class_name="baton-sidebar-list"),
        rx.hstack(
            shortcuts_help(),
            theme_toggle(),
            settings_dialog(),
            rx.spacer(),
            rx.link("Admin", href="/admin", size="1", color_scheme="gray"),
            align="center",
            width="100%",
            class_name="baton-sidebar-foot",
        ),
        id="sidebar",
        class_name="baton-sidebar",
        aria_label="Chats",
    )
