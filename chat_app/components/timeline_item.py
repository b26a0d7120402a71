import reflex as rx

from chat_app.components.marker_row import marker_row
from chat_app.components.message_bubble import message_bubble
from chat_app.components.replaced_badge import replaced_badge
from chat_app.components.session_divider import session_divider
from chat_app.components.tool_row import tool_row
from chat_app.states.rows import TimelineRow


def timeline_item(row: rx.Var[TimelineRow]) -> rx.Component:
    """One timeline row, drawn by kind; carries its session's anchor id when it starts one."""
    return _item(row, owner=False)


def owner_timeline_item(row: rx.Var[TimelineRow]) -> rx.Component:
    """A timeline row on the owner's chat page: with its actions (fork from here)."""
    return _item(row, owner=True)


def _item(row: rx.Var[TimelineRow], *, owner: bool) -> rx.Component:
    return rx.box(
        rx.match(
            row.kind,
            ("divider", session_divider(row)),
            ("tool", tool_row(row)),
            ("marker", marker_row(row)),
            message_bubble(row, owner),
        ),
        replaced_badge(row, owner),
        id=row.anchor,
        key=row.key,
        custom_attrs={
            "data-key": row.key,
            "data-seq": row.seq,
            "data-session": row.session_number,
            "data-replaced": rx.cond(row.replaced, "true", "false"),
        },
        class_name="baton-item",
        width="100%",
    )
