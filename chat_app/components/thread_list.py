import reflex as rx

from chat_app.components.thread_row import thread_row
from chat_app.states.thread_list import ThreadListState


def thread_list() -> rx.Component:
    """Search box, new-chat button and the owner's chats, most recent first."""
    return rx.vstack(
        rx.hstack(
            rx.input(
                rx.input.slot(rx.icon("search", size=14)),
                placeholder="Search chats by title",
                default_value=ThreadListState.search,
                on_change=ThreadListState.set_search.debounce(250),
                flex="1",
                id="thread-search",
            ),
            # Which assistant a new chat starts with, once the admin has made more than one.
            rx.cond(
                ThreadListState.assistants.length() > 1,
                rx.select.root(
                    rx.select.trigger(aria_label="Assistant for a new chat", id="assistant-choice"),
                    rx.select.content(
                        rx.foreach(
                            ThreadListState.assistants,
                            lambda a: rx.select.item(a.label, value=a.id),
                        ),
                    ),
                    value=ThreadListState.assistant_id,
                    on_change=ThreadListState.set_assistant,
                ),
            ),
            rx.button(rx.icon("plus", size=14), "New chat", on_click=ThreadListState.new_chat, id="new-chat"),
            width="100%",
        ),
        rx.cond(
            ThreadListState.loaded & (ThreadListState.threads.length() == 0),
            rx.center(
                rx.text(
                    rx.cond(ThreadListState.search != "", "No chat matches that title.", "No chats yet. Start one."),
                    color_scheme="gray",
                ),
                width="100%",
                padding_y="3em",
            ),
        ),
        rx.foreach(ThreadListState.threads, thread_row),
        spacing="3",
        width="100%",
    )
