import reflex as rx

from chat_app.components.context_chart import context_chart
from chat_app.states.chat import ChatState


def _mark(shown: rx.Var[bool], percent: rx.Var[float], name: str, classes: str) -> rx.Component:
    """A threshold's mark on the bar, shown only while that threshold acts."""
    return rx.cond(
        shown,
        rx.box(class_name=classes, left=percent.to_string() + "%", title=f"{name} threshold"),
    )


def context_meter() -> rx.Component:
    """Context utilization: a bar with the compact and reset thresholds marked; pressing it
    opens the context chart."""
    meter = ChatState.meter
    fill_color = rx.match(
        meter.level,
        ("high", rx.color("tomato", 9)),
        ("warn", rx.color("amber", 9)),
        rx.color("accent", 9),
    )
    bar = rx.hstack(
        rx.box(
            rx.box(
                class_name="baton-meter-fill",
                width=meter.percent.to_string() + "%",
                background=fill_color,
            ),
            _mark(meter.show_compact, meter.compact_percent, "compact", "baton-meter-mark"),
            _mark(
                meter.show_reset, meter.reset_percent, "reset", "baton-meter-mark baton-meter-reset"
            ),
            class_name="baton-meter-track",
        ),
        rx.text(meter.label, size="1", class_name="baton-meter-label"),
        title=meter.title,
        id="context-meter",
        data_percent=meter.percent,
        align="center",
        spacing="2",
        class_name="baton-meter",
        role="progressbar",
        aria_label="Context used",
        aria_valuenow=meter.percent,
        aria_valuemin=0,
        aria_valuemax=100,
    )
    # The token figures are the button's own title: a title inside a button is not shown
    # by every browser (Firefox shows only the button's).
    return context_chart(
        rx.el.button(
            bar,
            type="button",
            id="open-context-chart",
            class_name="baton-meter-button",
            title=meter.title,
            aria_label="Context used: open the context chart",
        )
    )
