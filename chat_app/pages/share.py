"""`/share/[share_token]`: a read-only snapshot of a thread. No composer, no meter, no
settings; the same not-found page for missing, revoked and expired links."""

import reflex as rx

from chat_app.components.app_header import app_header
from chat_app.components.timeline_item import timeline_item
from chat_app.states.rows import ChipRow
from chat_app.states.share_state import SharedThreadState

NOINDEX = [{"name": "robots", "content": "noindex, nofollow"}]


def _chip(chip: rx.Var[ChipRow]) -> rx.Component:
    # Mirrors components/session_chips, which is bound to ChatState's handler.
    return rx.button(
        chip.label,
        on_click=SharedThreadState.jump_to_session(chip.number),
        variant="soft",
        size="1",
        radius="full",
        class_name="baton-chip",
        data_session=chip.number,
    )


def _shared_not_found() -> rx.Component:
    return rx.center(
        rx.vstack(
            rx.icon("link-2-off", size=32),
            rx.heading("Link not found", size="5"),
            rx.text(
                "This shared link does not exist or is no longer available.", color_scheme="gray"
            ),
            align="center",
            spacing="3",
            id="share-not-found",
        ),
        padding_y="6em",
        width="100%",
    )


def share_page() -> rx.Component:
    return rx.box(
        rx.cond(
            SharedThreadState.found,
            rx.vstack(
                rx.vstack(
                    app_header(
                        rx.hstack(
                            rx.text(
                                SharedThreadState.title,
                                weight="medium",
                                id="thread-title",
                                class_name="baton-ellipsis",
                            ),
                            rx.badge("read-only", variant="soft", color_scheme="gray"),
                            align="center",
                        )
                    ),
                    rx.cond(
                        SharedThreadState.chips.length() > 1,
                        rx.hstack(
                            rx.foreach(SharedThreadState.chips, _chip),
                            spacing="1",
                            class_name="baton-chips",
                            role="navigation",
                            aria_label="Sessions",
                        ),
                    ),
                    spacing="2",
                    width="100%",
                    class_name="baton-sticky-header",
                ),
                rx.box(
                    rx.vstack(
                        rx.cond(
                            SharedThreadState.has_earlier,
                            rx.button(
                                "Load earlier",
                                on_click=SharedThreadState.load_earlier,
                                variant="soft",
                                size="1",
                                align_self="center",
                                id="load-earlier",
                            ),
                        ),
                        rx.foreach(SharedThreadState.rows, timeline_item),
                        spacing="3",
                        width="100%",
                        id="timeline",
                        class_name="baton-timeline",
                    ),
                    class_name="baton-page baton-chat-body",
                ),
                spacing="0",
                width="100%",
            ),
            rx.box(app_header(), _shared_not_found(), class_name="baton-page"),
        ),
        class_name="baton-shell",
    )
