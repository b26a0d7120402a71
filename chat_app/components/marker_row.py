import reflex as rx

from chat_app.states.rows import TimelineRow


def marker_row(row: rx.Var[TimelineRow]) -> rx.Component:
    """A small inline note: compaction, todo compression, a warning; a failed tool source
    (an MCP server that could not be used) stands out as a problem."""
    return rx.hstack(
        rx.cond(row.problem, rx.icon("triangle-alert", size=12), rx.icon("shrink", size=12)),
        rx.text(row.content, size="1"),
        class_name=rx.cond(row.problem, "baton-row baton-marker baton-marker-problem",
                           "baton-row baton-marker"),
        align="center",
        spacing="1",
    )
