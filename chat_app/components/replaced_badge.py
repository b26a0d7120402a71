import reflex as rx

from chat_app.states.replies_state import RepliesState
from chat_app.states.rows import TimelineRow


def replaced_badge(row: rx.Var[TimelineRow], owner: bool) -> rx.Component:
    """Under the last row of a reply that was regenerated (once for the whole reply): it is
    kept but not seen by the model; the owner can choose it again."""
    return rx.cond(
        row.reply_end,
        rx.hstack(
            rx.badge("earlier reply · not in context", color_scheme="gray", variant="outline"),
            *(
                [
                    rx.button(
                        "Use this reply",
                        size="1",
                        variant="soft",
                        on_click=RepliesState.choose(row.seq),
                        class_name="baton-use-reply",
                    )
                ]
                if owner
                else []
            ),
            spacing="2",
            align="center",
            margin_top="0.3em",
            class_name="baton-earlier-reply",
        ),
    )
