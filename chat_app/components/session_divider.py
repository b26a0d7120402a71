import reflex as rx

from chat_app.components.handoff_summary import handoff_summary
from chat_app.components.undo_button import undo_button
from chat_app.states.chat import ChatState
from chat_app.states.marker_state import MarkerState
from chat_app.states.rows import DividerPart, TimelineRow


def session_divider(row: rx.Var[TimelineRow]) -> rx.Component:
    """The seam between two sessions: a labelled rule and the handoff card under it."""
    return rx.foreach(row.divider, lambda divider: _divider(row, divider))


def _divider(row: rx.Var[TimelineRow], divider: rx.Var[DividerPart]) -> rx.Component:
    return rx.box(
        rx.hstack(
            rx.separator(size="4", flex="1"),
            rx.hstack(
                rx.cond(row.resetting, rx.spinner(size="1"), rx.icon("refresh-cw", size=12)),
                rx.text(divider.header, size="1", weight="medium"),
                align="center",
                spacing="1",
                class_name="baton-divider-label",
                data_created=divider.created_iso,
            ),
            rx.separator(size="4", flex="1"),
            align="center",
            width="100%",
        ),
        rx.cond(
            ChatState.undo_target.key == row.key,
            rx.center(undo_button(MarkerState.undo_handoff(row.session_number), "Undo /handoff")),
        ),
        rx.foreach(divider.card, handoff_summary),
        class_name="baton-row baton-divider",
        data_session=row.session_number,
    )
