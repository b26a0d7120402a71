import reflex as rx

from chat_app.components.marker_row import marker_row
from chat_app.components.message_bubble import message_bubble
from chat_app.components.replaced_badge import replaced_badge
from chat_app.components.session_divider import session_divider
from chat_app.components.tool_row import tool_row
from chat_app.states.rows import TimelineRow


def timeline_item(row: rx.Var[TimelineRow]) -> rx.Component:
    """One timeline row, drawn by kind; carries its session's anchor id when it starts one."""
    return _shared_row(row=row, key=row.key)


def owner_timeline_item(row: rx.Var[TimelineRow]) -> rx.Component:
    """A timeline row on the owner's chat page: with its actions (fork from here)."""
    return _owner_row(row=row, key=row.key)


# Each row is one React component, compiled once: the chat page draws rows in 51 places (the
# loaded window and each live page), and a row written in place was compiled into each of
# them, which made the page's script 1.6 MB of the same row 51 times over. The key is the
# list's (React reads it where the rows are listed); ``rest`` carries any other prop given.
@rx.memo
def _owner_row(row: rx.Var[TimelineRow], rest: rx.RestProp) -> rx.Component:
    return _item(row, rest, owner=True)


@rx.memo
def _shared_row(row: rx.Var[TimelineRow], rest: rx.RestProp) -> rx.Component:
    return _item(row, rest, owner=False)


def _item(row: rx.Var[TimelineRow], rest: rx.RestProp, *, owner: bool) -> rx.Component:
    return rx.box(
        rx.match(
            row.kind,
            ("divider", session_divider(row)),
            ("tool", tool_row(row)),
            ("marker", marker_row(row)),
            message_bubble(row, owner),
        ),
        replaced_badge(row, owner),
        rest,
        id=row.anchor,
        custom_attrs={
            "data-key": row.key,
            "data-seq": row.seq,
            "data-session": row.session_number,
            "data-replaced": rx.cond(row.replaced, "true", "false"),
        },
        class_name="baton-item",
        width="100%",
    )
