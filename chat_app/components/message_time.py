import reflex as rx

from chat_app.states.rows import TimelineRow


def message_time(row: rx.Var[TimelineRow]) -> rx.Component:
    """When a message was stored, shortly; the exact time and its tokens in a tooltip that
    opens on hover and on keyboard focus (the label is focusable)."""
    return rx.cond(
        row.time_title != "",
        rx.tooltip(
            rx.text(row.time_label, size="1", color_scheme="gray", tab_index=0,
                    class_name="baton-msg-time",
                    aria_label=row.time_title + rx.cond(row.usage != "", " · " + row.usage, "")),
            content=row.time_title + rx.cond(row.usage != "", " · " + row.usage, ""),
        ),
    )
