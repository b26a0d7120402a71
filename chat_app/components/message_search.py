import reflex as rx

from chat_app.states.message_search_state import HitRow, MessageSearchState


def _hit(hit: rx.Var[HitRow]) -> rx.Component:
    return rx.el.button(
        rx.text(hit.thread_title, weight="medium", size="2", class_name="baton-ellipsis"),
        rx.text(hit.where, size="1", color_scheme="gray"),
        rx.text(hit.snippet, size="2", class_name="baton-search-snippet"),
        type="button",
        on_click=MessageSearchState.open_hit(hit.thread_id, hit.seq),
        class_name="baton-search-hit",
        custom_attrs={"data-thread": hit.thread_id, "data-seq": hit.seq},
    )


def message_search() -> rx.Component:
    """Search the text of every message of every chat; a hit opens its chat at the message.
    Opened by ``MessageSearchState.open_dialog`` (the header's Search button)."""
    return rx.dialog.root(
        rx.dialog.trigger(
            rx.icon_button(
                rx.icon("search", size=14),
                size="1",
                variant="soft",
                aria_label="Search messages",
                title="Search messages",
                on_click=MessageSearchState.open_dialog,
                id="message-search-open",
            ),
        ),
        rx.dialog.content(
            rx.dialog.title("Search messages"),
            rx.dialog.description(
                "Finds messages of all your chats that hold every word.",
                size="2",
                margin_bottom="0.75em",
            ),
            rx.form(
                rx.hstack(
                    rx.input(
                        name="query",
                        placeholder="Words to find in any chat",
                        id="message-search-input",
                        default_value=MessageSearchState.query,
                        width="100%",
                        auto_complete="off",
                    ),
                    rx.button("Search", type="submit", size="2", id="message-search-submit"),
                    width="100%",
                ),
                on_submit=MessageSearchState.search,
                reset_on_submit=False,
            ),
            rx.cond(
                MessageSearchState.searched & (MessageSearchState.hits.length() == 0),
                rx.text(
                    "No message holds all of these words.",
                    size="2",
                    color_scheme="gray",
                    margin_top="1em",
                    id="message-search-empty",
                ),
            ),
            rx.vstack(
                rx.foreach(MessageSearchState.hits, _hit),
                spacing="1",
                width="100%",
                margin_top="1em",
                id="message-search-hits",
                class_name="baton-search-hits",
            ),
        ),
        open=MessageSearchState.dialog_open,
        on_open_change=MessageSearchState.set_open,
    )
