import reflex as rx

from chat_app.states.admin_delete_state import AdminDeleteState
from chat_app.states.admin_state import AdminState


def delete_assistant() -> rx.Component:
    """Delete the selected assistant, after choosing where its chats go; never the last one."""
    return rx.cond(
        AdminState.assistants.length() > 1,
        rx.alert_dialog.root(
            rx.alert_dialog.trigger(
                rx.button(
                    rx.icon("trash-2", size=14),
                    "Delete assistant",
                    variant="soft",
                    color_scheme="tomato",
                    type="button",
                    id="delete-assistant",
                ),
            ),
            rx.alert_dialog.content(
                rx.alert_dialog.title("Delete this assistant?"),
                rx.alert_dialog.description(
                    "Its settings, history and MCP servers are removed. Its ",
                    AdminDeleteState.chats.to_string(),
                    " chat(s) move to the assistant you choose and go on with its settings.",
                    id="delete-assistant-description",
                ),
                rx.vstack(
                    rx.text(
                        "Move its chats to",
                        size="2",
                        weight="medium",
                        as_="label",
                        html_for="delete-move-to",
                    ),
                    rx.el.select(
                        rx.foreach(
                            AdminDeleteState.targets, lambda a: rx.el.option(a.name, value=a.id)
                        ),
                        value=AdminDeleteState.move_to,
                        on_change=AdminDeleteState.set_move_to,
                        id="delete-move-to",
                        class_name="baton-select",
                    ),
                    rx.cond(
                        AdminDeleteState.error != "",
                        rx.text(
                            AdminDeleteState.error,
                            size="2",
                            class_name="baton-field-error",
                            id="delete-assistant-error",
                        ),
                    ),
                    spacing="1",
                    margin_top="1em",
                ),
                rx.hstack(
                    rx.alert_dialog.cancel(
                        rx.button("Cancel", variant="soft", color_scheme="gray")
                    ),
                    rx.alert_dialog.action(
                        rx.button(
                            "Delete",
                            color_scheme="tomato",
                            on_click=AdminDeleteState.confirm,
                            id="delete-assistant-confirm",
                        ),
                    ),
                    justify="end",
                    spacing="2",
                    margin_top="1em",
                ),
            ),
            on_open_change=AdminDeleteState.prepare,
        ),
        rx.text(
            "The only assistant cannot be deleted: chats need one.",
            size="1",
            color_scheme="gray",
            id="delete-assistant-last",
        ),
    )
