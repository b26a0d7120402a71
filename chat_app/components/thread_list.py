import reflex as rx

from chat_app.components.import_dialog import import_dialog
from chat_app.components.thread_row import thread_row
from chat_app.states.thread_list import ThreadListState


def _assistant_choice() -> rx.Component:
    # Which assistant a new chat starts with, once the admin has made more than one.
    return rx.cond(
        ThreadListState.assistants.length() > 1,
        rx.select.root(
            rx.select.trigger(
                aria_label="Assistant for a new chat", id="assistant-choice", width="100%"
            ),
            rx.select.content(
                rx.foreach(
                    ThreadListState.assistants,
                    lambda a: rx.select.item(a.label, value=a.id),
                ),
            ),
            value=ThreadListState.assistant_id,
            on_change=ThreadListState.set_assistant,
        ),
    )


def thread_list() -> rx.Component:
    """New chat, search box and the owner's chats, most recent first."""
    return rx.vstack(
        rx.button(
            rx.icon("plus", size=14),
            "New chat",
            on_click=ThreadListState.new_chat,
            id="new-chat",
            width="100%",
            title="New chat (Ctrl+Shift+O)",
        ),
        import_dialog(),
        _assistant_choice(),
        rx.input(
            rx.input.slot(rx.icon("search", size=14)),
            placeholder="Search chats by title",
            default_value=ThreadListState.search,
            on_change=ThreadListState.set_search.debounce(250),
            width="100%",
            id="thread-search",
            aria_label="Search chats (Ctrl+K)",
            type="search",
        ),
        rx.cond(
            ThreadListState.loaded & (ThreadListState.threads.length() == 0),
            rx.text(
                rx.cond(
                    ThreadListState.search != "", "No chat matches that title.", "No chats yet."
                ),
                color_scheme="gray",
                size="2",
                padding_y="1em",
                id="thread-list-empty",
            ),
        ),
        # Clicked by baton-layout.js when the tab comes back into view.
        rx.el.button(
            type="button", hidden=True, id="thread-list-refresh", on_click=ThreadListState.refresh
        ),
        rx.el.nav(
            rx.foreach(ThreadListState.threads, thread_row),
            class_name="baton-thread-list",
            aria_label="Your chats",
        ),
        spacing="2",
        width="100%",
    )
