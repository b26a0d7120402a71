import reflex as rx

from chat_app.components.app_header import app_header
from chat_app.components.import_dialog import import_dialog
from chat_app.components.thread_list import thread_list


def index_page() -> rx.Component:
    """`/`: the owner's chats."""
    return rx.box(
        rx.vstack(
            app_header(),
            rx.hstack(rx.heading("Your chats", size="6"), import_dialog(),
                      justify="between", align="center", width="100%", margin_top="0.5em"),
            thread_list(),
            spacing="4",
            class_name="baton-page",
        ),
        class_name="baton-shell",
    )
