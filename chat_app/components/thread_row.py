import reflex as rx

from chat_app.states.chat import ChatState
from chat_app.states.rows import ThreadRow
from chat_app.states.thread_list import ThreadListState


def _rename_form(thread: rx.Var[ThreadRow]) -> rx.Component:
    return rx.form(
        rx.hstack(
            rx.input(
                value=ThreadListState.editing_title,
                on_change=ThreadListState.set_editing_title,
                auto_focus=True,
                flex="1",
                name="title",
                aria_label="New title",
            ),
            rx.button("Save", type="submit", size="2"),
            rx.button(
                "Cancel",
                type="button",
                variant="soft",
                color_scheme="gray",
                on_click=ThreadListState.cancel_rename,
                class_name="baton-rename-cancel",
                title="Keep the old title (Esc)",
            ),
            width="100%",
        ),
        on_submit=ThreadListState.save_rename,
        width="100%",
        class_name="baton-rename",
    )


def _delete_button(thread: rx.Var[ThreadRow]) -> rx.Component:
    return rx.alert_dialog.root(
        rx.alert_dialog.trigger(
            rx.icon_button(
                rx.icon("trash-2", size=14),
                variant="ghost",
                color_scheme="tomato",
                aria_label="Delete chat",
                title="Delete",
            ),
        ),
        rx.alert_dialog.content(
            rx.alert_dialog.title("Delete this chat?"),
            rx.alert_dialog.description(
                "It and all its sessions and handoffs are removed for good."
            ),
            rx.hstack(
                rx.alert_dialog.cancel(rx.button("Cancel", variant="soft", color_scheme="gray")),
                rx.alert_dialog.action(
                    rx.button(
                        "Delete", color_scheme="tomato", on_click=ThreadListState.delete(thread.id)
                    ),
                ),
                justify="end",
                spacing="2",
                margin_top="1em",
            ),
        ),
    )


def thread_row(thread: rx.Var[ThreadRow]) -> rx.Component:
    """One chat in the list: open it, or rename / delete it in place."""
    current = ChatState.thread_key == thread.id
    # The open chat's title as the page has it: a rename in another tab reaches it live.
    title = rx.cond(current, ChatState.title, thread.title)
    return rx.card(
        rx.cond(
            ThreadListState.editing_id == thread.id,
            _rename_form(thread),
            rx.hstack(
                rx.link(
                    rx.vstack(
                        rx.text(title, weight="medium", class_name="baton-ellipsis"),
                        rx.text(
                            rx.el.time(
                                thread.updated_label,
                                date_time=thread.updated_iso,
                                class_name="baton-reltime",
                            ),
                            rx.cond(
                                thread.session_count > 1,
                                " · " + thread.session_count.to_string() + " sessions",
                                "",
                            ),
                            rx.cond(thread.model_label != "", " · " + thread.model_label, ""),
                            size="1",
                            color_scheme="gray",
                        ),
                        spacing="0",
                        min_width="0",
                    ),
                    href="/t/" + thread.id,
                    underline="none",
                    color_scheme="gray",
                    high_contrast=True,
                    flex="1",
                    min_width="0",
                    class_name="baton-thread-link",
                    aria_current=rx.cond(current, "page", "false"),
                ),
                rx.icon_button(
                    rx.icon("pencil", size=14),
                    variant="ghost",
                    aria_label="Rename chat",
                    title="Rename",
                    on_click=ThreadListState.start_rename(thread.id, title),
                ),
                _delete_button(thread),
                align="center",
                width="100%",
            ),
        ),
        width="100%",
        class_name="baton-thread-row",
        data_thread=thread.id,
        data_current=rx.cond(current, "true", "false"),
    )
