import reflex as rx

from chat_app.states.rows import TimelineRow


def message_time(row: rx.Var[TimelineRow]) -> rx.Component:
    """When a message was stored, shortly; the exact time and its tokens in a tooltip that
    shows on hover and on keyboard focus (the label is focusable). Plain CSS: it is in the
    page from the start, so nothing has to run for it to appear."""
    detail = row.time_title + rx.cond(row.usage != "", " · " + row.usage, "")
    return rx.cond(
        row.time_title != "",
        rx.el.span(
            row.time_label,
            rx.el.span(detail, role="tooltip", class_name="baton-msg-tip"),
            tab_index=0,
            aria_label=detail,
            class_name="baton-msg-time",
        ),
    )
