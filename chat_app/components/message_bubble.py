import reflex as rx

from chat_app.components.copy_button import copy_button
from chat_app.components.feedback_buttons import feedback_buttons
from chat_app.components.fork_button import fork_button
from chat_app.components.message_text import message_text
from chat_app.components.message_time import message_time
from chat_app.states.rows import TimelineRow


def message_bubble(row: rx.Var[TimelineRow], owner: bool = False) -> rx.Component:
    """A user or assistant message: markdown (collapsed when long), a copy button, badges;
    on the owner's page, the conversation operations (fork from a stored user message)."""
    is_user = row.role == "user"
    return rx.flex(
        rx.box(
            message_text(row.content, is_user),
            rx.hstack(
                rx.cond(row.queued, rx.badge("queued", color_scheme="amber", variant="soft")),
                rx.cond(row.stopped, rx.badge("stopped", color_scheme="gray", variant="soft")),
                rx.cond(
                    row.incomplete,
                    rx.badge(
                        "cut off",
                        color_scheme="red",
                        variant="soft",
                        title="The provider ended the reply early",
                    ),
                ),
                rx.cond(
                    ~is_user & (row.model != ""),
                    rx.text(
                        row.model, size="1", color_scheme="gray", class_name="baton-model-label"
                    ),
                ),
                message_time(row),
                rx.spacer(),
                *(
                    [
                        rx.cond(is_user & ~row.queued & (row.seq > 0), fork_button(row)),
                        rx.cond(~is_user & (row.seq > 0), feedback_buttons(row)),
                    ]
                    if owner
                    else []
                ),
                copy_button(row.content),
                align="center",
                spacing="2",
                width="100%",
            ),
            class_name=rx.cond(is_user, "baton-bubble baton-user", "baton-bubble baton-assistant"),
            data_queued=rx.cond(row.queued, "true", "false"),
            data_replaced=rx.cond(row.replaced, "true", "false"),
        ),
        justify=rx.cond(is_user, "end", "start"),
        width="100%",
        class_name="baton-row baton-message",
        data_role=row.role,
    )
