import reflex as rx

from chat_app.states.marker_rows import OriginalRow
from chat_app.states.marker_state import MarkerState


def _original(row: rx.Var[OriginalRow]) -> rx.Component:
    return rx.box(
        rx.text(row.who, size="1", weight="medium"),
        rx.el.pre(row.content, class_name="baton-original-text"),
        class_name="baton-original",
        custom_attrs={"data-key": row.key},
    )


def marker_originals() -> rx.Component:
    """The original messages behind the open marker, as the store keeps them."""
    return rx.vstack(
        rx.text(MarkerState.originals_note, size="1", color_scheme="gray"),
        rx.foreach(MarkerState.originals, _original),
        class_name="baton-originals",
        spacing="2",
        width="100%",
    )
