import reflex as rx

from chat_app.components.marker_originals import marker_originals
from chat_app.components.undo_button import undo_button
from chat_app.states.chat import ChatState
from chat_app.states.marker_state import MarkerState
from chat_app.states.rows import MarkerPart, TimelineRow


def _originals_toggle(row: rx.Var[TimelineRow]) -> rx.Component:
    is_open = MarkerState.open_key == row.key
    return rx.button(
        rx.cond(is_open, rx.icon("chevron-up", size=12), rx.icon("chevron-down", size=12)),
        rx.cond(is_open, "Hide originals", "Show originals"),
        on_click=MarkerState.toggle_originals(row.key),
        size="1",
        variant="ghost",
        class_name="baton-originals-toggle",
    )


def marker_row(row: rx.Var[TimelineRow]) -> rx.Component:
    """A small inline note: compaction, mask, todo compression, undo, a warning. An edit's
    note expands to its original messages; the newest one can be undone. A failed tool source
    (an MCP server that could not be used) stands out as a problem."""
    return rx.foreach(row.marker, lambda note: _note(row, note))


def _note(row: rx.Var[TimelineRow], note: rx.Var[MarkerPart]) -> rx.Component:
    is_undo_target = ChatState.undo_target.key == row.key
    return rx.vstack(
        rx.hstack(
            rx.cond(note.problem, rx.icon("triangle-alert", size=12), rx.icon("shrink", size=12)),
            rx.text(row.content, size="1"),
            rx.cond(note.edit >= 0, _originals_toggle(row)),
            rx.cond(is_undo_target, undo_button(MarkerState.undo(row.key))),
            align="center",
            spacing="2",
            justify="center",
            wrap="wrap",
        ),
        rx.cond(MarkerState.open_key == row.key, marker_originals()),
        class_name=rx.cond(
            note.problem, "baton-row baton-marker baton-marker-problem", "baton-row baton-marker"
        ),
        custom_attrs={"data-marker": note.marker_event},
        align="center",
        spacing="1",
    )
