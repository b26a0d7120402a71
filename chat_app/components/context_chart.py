"""The context chart: utilization per model call, one line per run, with the resets,
compactions and masks marked and the thresholds drawn; opened from the context meter."""

import reflex as rx

from chat_app.components import charts
from chat_app.states.chart_state import ChartState


def _threshold(line: rx.Var) -> rx.Component:
    return charts.reference_line(
        y=line["percent"],
        stroke=line["color"],
        stroke_dasharray="4 4",
        label=line["label"],
        if_overflow="extendDomain",
    )


def _marker(marker: rx.Var) -> rx.Component:
    return charts.reference_line(x=marker["call"], stroke=marker["color"], stroke_width=2)


def _series(series: rx.Var) -> rx.Component:
    # The run's line, and its token counts on a hidden axis: drawn in no colour, they only
    # add "tokens" to the tooltip of each call.
    return rx.fragment(
        charts.line(
            data_key=series["key"],
            name=series["label"],
            stroke=series["color"],
            unit="%",
            type_="monotone",
            is_animation_active=False,
            dot=True,
        ),
        charts.line(
            data_key=series["key"].to(str) + "_tokens",
            name=series["label"].to(str) + " tokens",
            y_axis_id="tokens",
            stroke="transparent",
            dot=False,
            active_dot=False,
            legend_type="none",
            is_animation_active=False,
        ),
    )


def _marker_item(marker: rx.Var) -> rx.Component:
    return rx.el.li(
        marker["label"],
        " after call ",
        marker["after"],
        rx.cond(marker["cost"].to(str) != "", rx.el.span(" · ", marker["cost"])),
        data_kind=marker["kind"],
        class_name="baton-chart-marker",
        style={
            "border_left": "3px solid",
            "border_color": marker["color"],
            "padding_left": "0.4em",
        },
    )


def _chart() -> rx.Component:
    return charts.composed_chart(
        charts.cartesian_grid(stroke_dasharray="3 3"),
        charts.x_axis(
            data_key="call",
            type_="number",
            domain=["dataMin", "dataMax"],
            allow_decimals=False,
            name="Model call",
        ),
        charts.y_axis(domain=[0, 100], unit="%", width=48),
        charts.y_axis(y_axis_id="tokens", hide=True),
        rx.foreach(ChartState.thresholds, _threshold),
        rx.foreach(ChartState.markers, _marker),
        rx.foreach(ChartState.series, _series),
        charts.graphing_tooltip(),
        charts.legend(),
        data=ChartState.points,
        width="100%",
        height=320,
    )


def context_chart(trigger: rx.Component) -> rx.Component:
    """``trigger`` (the meter) opens a dialog with the chart of the open chat."""
    return rx.dialog.root(
        rx.dialog.trigger(trigger),
        rx.dialog.content(
            rx.dialog.title("Context over this chat"),
            rx.text(ChartState.summary, size="1", id="context-chart-summary"),
            rx.cond(
                ChartState.calls > 0,
                rx.box(_chart(), id="context-chart-plot", width="100%"),
                rx.text("No model calls recorded yet.", size="2"),
            ),
            rx.el.ul(
                rx.foreach(ChartState.markers, _marker_item),
                class_name="baton-chart-markers",
                aria_label="Resets, compactions and masks",
            ),
            rx.flex(
                rx.dialog.close(rx.button("Close", variant="soft", id="context-chart-close")),
                justify="end",
            ),
            id="context-chart",
            max_width="min(960px, 96vw)",
        ),
        open=ChartState.open,
        on_open_change=ChartState.set_open,
    )
