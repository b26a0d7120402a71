import reflex as rx

from chat_app.components.live_pages import live_pages
from chat_app.components.regenerate_button import regenerate_button
from chat_app.components.streaming_bubble import streaming_bubble
from chat_app.components.timeline_item import owner_timeline_item
from chat_app.states import scripts
from chat_app.states.chat import ChatState


def timeline() -> rx.Component:
    """The loaded window of the thread, a way to load earlier rows, and the live reply."""
    return rx.vstack(
        rx.cond(
            ChatState.has_earlier,
            rx.button(
                rx.icon("chevrons-up", size=14),
                "Load earlier",
                on_click=[scripts.remember_place(), ChatState.load_earlier],
                variant="soft",
                size="1",
                align_self="center",
                id="load-earlier",
            ),
        ),
        rx.cond(
            (ChatState.rows.length() == 0)
            & (ChatState.live_pages.length() == 0)
            & ~ChatState.sending,
            rx.center(
                rx.text("Say hello to start this chat.", color_scheme="gray", size="2"),
                width="100%",
                padding_y="4em",
            ),
        ),
        rx.foreach(ChatState.rows, owner_timeline_item),
        rx.cond(
            ChatState.has_later,
            rx.button(
                rx.icon("chevrons-down", size=14),
                "Newer messages",
                on_click=ChatState.load_later,
                variant="soft",
                size="1",
                align_self="center",
                id="load-later",
            ),
        ),
        live_pages(),
        streaming_bubble(),
        regenerate_button(),
        spacing="3",
        width="100%",
        id="timeline",
        class_name="baton-timeline",
    )
