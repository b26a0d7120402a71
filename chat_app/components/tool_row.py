import reflex as rx

from chat_app.states.rows import TimelineRow


def tool_row(row: rx.Var[TimelineRow]) -> rx.Component:
    """A tool call folded to one line; the result opens in the browser, no round trip."""
    return rx.el.details(
        rx.el.summary(
            rx.cond(row.tool_failed, rx.icon("circle-x", size=14), rx.icon("wrench", size=14)),
            rx.text(row.tool_name, weight="medium", size="2", as_="span"),
            rx.cond(
                row.simulated,
                rx.badge("simulated", color_scheme="amber", variant="soft", size="1",
                         title="The offline simulator made this output up; nothing ran"),
            ),
            rx.text(row.summary, size="2", color_scheme="gray", as_="span", class_name="baton-ellipsis"),
            class_name="baton-tool-summary",
        ),
        rx.el.pre(row.tool_result, class_name="baton-tool-result"),
        class_name=rx.cond(row.tool_failed, "baton-row baton-tool baton-tool-failed", "baton-row baton-tool"),
    )
