import reflex as rx

from chat_app.states.fork_state import ForkState
from chat_app.states.rows import TimelineRow


def fork_button(row: rx.Var[TimelineRow]) -> rx.Component:
    """ "Fork from here" on a stored user message: opens the fork dialog on its text."""
    return rx.icon_button(
        rx.icon("git-branch", size=14),
        on_click=ForkState.open_at(row.seq),
        variant="ghost",
        size="1",
        color_scheme="gray",
        aria_label="Edit and fork from here",
        title="Edit and fork from here",
        class_name="baton-fork",
    )
