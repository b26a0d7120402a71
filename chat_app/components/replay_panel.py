"""An imported chat's dock (in place of the composer): what it is, "Replay with…", progress
and Cancel, and each replay's chart and events beside the original agent's."""

import reflex as rx

from chat_app.components import charts
from chat_app.components.agent_cuts_dialog import agent_cuts_dialog
from chat_app.components.highlighted_code import highlighted_code
from chat_app.services.conversation.threads import ReplayEventView, ReplayView
from chat_app.states.import_state import ReplayState


def _marks(key: str, name: str, color: str) -> rx.Component:
    """A series drawn only as dots: where a run compacted or reset (ComposedChart takes no
    Scatter in Reflex, so a line of zero width carries them)."""
    return charts.line(
        data_key=key,
        name=name,
        stroke=color,
        stroke_width=0,
        legend_type="circle",
        dot={"r": 5, "fill": color, "stroke": color},
        active_dot={"r": 7, "fill": color},
        connect_nulls=False,
        is_animation_active=False,
    )


def _chart() -> rx.Component:
    return charts.composed_chart(
        charts.cartesian_grid(stroke_dasharray="3 3", opacity=0.4),
        charts.x_axis(
            data_key="message", type_="number", domain=["dataMin", "dataMax"], name="message"
        ),
        charts.y_axis(width=64),
        charts.graphing_tooltip(),
        charts.legend(),
        charts.line(
            data_key="original",
            name="original agent (reported)",
            stroke="#8e8e93",
            dot=False,
            connect_nulls=True,
            is_animation_active=False,
        ),
        charts.line(
            data_key="baton",
            name="Baton replay",
            stroke="#3e63dd",
            dot=False,
            connect_nulls=True,
            is_animation_active=False,
        ),
        _marks("original_compaction", "original compaction", "#e5484d"),
        _marks("baton_mask", "Baton mask", "#8d8d8d"),
        _marks("baton_reset", "Baton reset", "#3e63dd"),
        _marks("baton_compaction", "Baton compaction", "#f76b15"),
        charts.reference_line(
            y=ReplayState.threshold_tokens,
            stroke="#3e63dd",
            stroke_dasharray="4 4",
            label="reset threshold",
        ),
        data=ReplayState.chart,
        height=280,
        width="100%",
        id="replay-chart",
    )


def _event(event: rx.Var[ReplayEventView]) -> rx.Component:
    return rx.el.details(
        rx.el.summary(rx.text(event.label, size="2", as_="span")),
        rx.cond(event.preview != "", rx.text(event.preview, size="2", color_scheme="gray")),
        rx.cond(
            event.kind == "reset",
            highlighted_code(
                event.handoff.to_string(),
                language="json",
                wrap_long_lines=True,
                class_name="baton-replay-handoff",
            ),
        ),
        class_name="baton-replay-event",
    )


def _run_chip(run: rx.Var[ReplayView]) -> rx.Component:
    return rx.button(
        run.label,
        " · ",
        run.masks,
        rx.cond(run.masks == 1, " mask, ", " masks, "),
        run.resets,
        rx.cond(run.resets == 1, " reset, ", " resets, "),
        run.compactions,
        rx.cond(run.compactions == 1, " compaction", " compactions"),
        size="1",
        variant=rx.cond(ReplayState.chosen == run.id, "solid", "soft"),
        on_click=ReplayState.choose(run.id),
        class_name="baton-replay-run",
    )


def _results() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title("Replays of this session"),
            rx.dialog.description(
                "The original agent's context at each call it reported, and Baton's after each "
                "message as the assistant's chats would run it: where it masked old tool "
                "outputs, compacted or reset. Baton's handoffs here are facts-only: built "
                "from what the tools did, with no model call.",
                size="2",
            ),
            rx.hstack(rx.foreach(ReplayState.runs, _run_chip), wrap="wrap", margin_y="0.5em"),
            _chart(),
            rx.foreach(
                ReplayState.runs,
                lambda run: rx.cond(
                    ReplayState.chosen == run.id,
                    rx.vstack(
                        rx.foreach(run.events, _event),
                        width="100%",
                        spacing="1",
                        id="replay-events",
                    ),
                ),
            ),
            rx.flex(
                rx.dialog.close(rx.button("Close", variant="soft", color_scheme="gray")),
                justify="end",
                margin_top="1em",
            ),
            max_width="min(960px, 96vw)",
            id="replay-results",
        ),
        open=ReplayState.results_open,
        on_open_change=ReplayState.set_results_open,
    )


def replay_panel() -> rx.Component:
    """The read-only chat's dock: where it came from and the replay controls."""
    return rx.vstack(
        rx.hstack(
            rx.badge("read-only", color_scheme="gray"),
            rx.text(ReplayState.source_label, size="2", id="imported-label"),
            wrap="wrap",
            align="center",
        ),
        rx.hstack(
            rx.text("Replay with", size="2"),
            rx.select.root(
                rx.select.trigger(
                    aria_label="Assistant whose policy to replay with", id="replay-assistant"
                ),
                rx.select.content(
                    rx.foreach(
                        ReplayState.assistants, lambda a: rx.select.item(a["label"], value=a["id"])
                    )
                ),
                value=ReplayState.assistant_id,
                on_change=ReplayState.set_assistant,
            ),
            rx.cond(
                ReplayState.running,
                rx.button(
                    "Cancel",
                    color_scheme="red",
                    variant="soft",
                    on_click=ReplayState.cancel,
                    id="replay-cancel",
                ),
                rx.button(
                    rx.icon("play", size=14),
                    "Replay",
                    on_click=ReplayState.start,
                    id="replay-start",
                ),
            ),
            rx.cond(
                ReplayState.runs.length() > 0,
                rx.button(
                    rx.icon("chart-line", size=14),
                    "Chart (",
                    ReplayState.runs.length(),
                    ")",
                    variant="soft",
                    on_click=ReplayState.set_results_open(True),
                    id="replay-show",
                ),
            ),
            rx.cond(
                ReplayState.cuts_label != "",
                rx.button(
                    rx.cond(
                        ReplayState.cuts_running,
                        rx.spinner(size="1"),
                        rx.icon("columns-2", size=14),
                    ),
                    ReplayState.cuts_label,
                    variant="soft",
                    disabled=ReplayState.cuts_running,
                    on_click=ReplayState.compare_cuts,
                    id="replay-agent-cuts",
                ),
            ),
            wrap="wrap",
            align="center",
        ),
        rx.cond(
            ReplayState.running | (ReplayState.progress_label != ""),
            rx.vstack(
                rx.progress(value=ReplayState.progress, max=100, width="100%"),
                rx.text(
                    ReplayState.progress_label, size="1", color_scheme="gray", id="replay-progress"
                ),
                width="100%",
                spacing="1",
            ),
        ),
        rx.cond(
            ReplayState.replay_error != "",
            rx.callout(
                ReplayState.replay_error, icon="triangle-alert", color_scheme="red", size="1"
            ),
        ),
        rx.cond(
            ReplayState.cuts_error != "",
            rx.callout(ReplayState.cuts_error, icon="triangle-alert", color_scheme="red", size="1"),
        ),
        _results(),
        agent_cuts_dialog(),
        width="100%",
        spacing="2",
        class_name="baton-replay-panel",
        id="replay-panel",
    )
