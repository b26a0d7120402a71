import reflex as rx

from chat_app.states.rows import TimelineRow, ToolCallPart


def tool_row(row: rx.Var[TimelineRow]) -> rx.Component:
    """A tool call folded to one line; the result opens in the browser, no round trip."""
    return rx.foreach(row.tool, _call)


def _call(call: rx.Var[ToolCallPart]) -> rx.Component:
    return rx.el.details(
        rx.el.summary(
            # Says the row opens (it turns when open, as the handoff card's does).
            rx.icon("chevron-right", size=14, class_name="baton-chevron"),
            rx.cond(call.tool_failed, rx.icon("circle-x", size=14), rx.icon("wrench", size=14)),
            rx.text(call.tool_name, weight="medium", size="2", as_="span"),
            rx.cond(
                call.simulated,
                rx.badge(
                    "simulated",
                    color_scheme="amber",
                    variant="soft",
                    size="1",
                    title="The offline simulator made this output up; nothing ran",
                ),
            ),
            rx.text(
                call.summary, size="2", color_scheme="gray", as_="span", class_name="baton-ellipsis"
            ),
            class_name="baton-tool-summary",
        ),
        rx.el.pre(call.tool_result, class_name="baton-tool-result"),
        class_name=rx.cond(
            call.tool_failed, "baton-row baton-tool baton-tool-failed", "baton-row baton-tool"
        ),
    )
