import reflex as rx

from chat_app.states.chat import ChatState


def undo_button(on_click: rx.EventHandler, label: str = "Undo") -> rx.Component:
    """Undo for the timeline's one undoable row: disabled while a turn runs, and with the
    reason shown beside it once the agent has answered since."""
    blocked = ChatState.undo_target.blocked
    return rx.hstack(
        rx.button(
            rx.icon("undo-2", size=12),
            label,
            on_click=on_click,
            disabled=ChatState.sending | (blocked != ""),
            title=rx.cond(
                blocked != "",
                blocked,
                rx.cond(
                    ChatState.sending,
                    "The agent is working; undo once it has stopped.",
                    "Undo: the model sees the context it had before",
                ),
            ),
            size="1",
            variant="soft",
            class_name="baton-undo",
        ),
        rx.cond(blocked != "", rx.text(blocked, size="1", class_name="baton-undo-blocked")),
        align="center",
        spacing="2",
    )
