import reflex as rx

from chat_app.states.rows import TimelineRow


def marker_row(row: rx.Var[TimelineRow]) -> rx.Component:
    """A small inline note: compaction, todo compression, a warning."""
    return rx.hstack(
        rx.icon("shrink", size=12),
        rx.text(row.content, size="1"),
        class_name="baton-row baton-marker",
        align="center",
        spacing="1",
    )
