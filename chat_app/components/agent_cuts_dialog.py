"""The imported chat's "Replay at <agent>'s compactions": at each cut the agent's own summary
beside Baton's handoff, each with its tokens and probe coverage (side by side when there is
room, one above the other on a phone)."""

import reflex as rx

from chat_app.services.conversation.threads import AgentCutView
from chat_app.states.import_state import ReplayState


def _text(heading: rx.Var[str], figures: rx.Var[str], body: rx.Var[str], kind: str) -> rx.Component:
    return rx.vstack(
        rx.text(heading, weight="bold", size="2"),
        rx.text(figures, size="1", color_scheme="gray", class_name="baton-cut-figures"),
        rx.el.pre(body, class_name="baton-cut-text"),
        spacing="1",
        min_width="0",
        width="100%",
        class_name=f"baton-cut-{kind}",
    )


def _cut(cut: rx.Var[AgentCutView]) -> rx.Component:
    return rx.card(
        rx.text(cut.title, weight="bold", size="2", margin_bottom="0.5em"),
        rx.grid(
            _text(cut.agent_heading, cut.agent_figures, cut.agent_summary, "agent"),
            _text("Baton's handoff", cut.baton_figures, cut.baton_handoff, "baton"),
            columns=rx.breakpoints(initial="1", sm="2"),
            spacing="3",
            width="100%",
        ),
        width="100%",
        class_name="baton-agent-cut",
    )


def agent_cuts_dialog() -> rx.Component:
    """The dialog listing every cut with both texts and their figures."""
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title(ReplayState.cuts_label),
            rx.dialog.description(
                "At each compaction the original agent made: the summary it wrote, and the "
                "handoff Baton writes for the same cut (facts-only, no model call). Probes come "
                "from the raw messages before the cut: the user's requests, the files written, "
                "the commits and the task under way; one counts when the text holds it.",
                size="2",
            ),
            rx.vstack(rx.foreach(ReplayState.cuts, _cut), spacing="3", margin_y="0.75em"),
            rx.flex(
                rx.dialog.close(rx.button("Close", variant="soft", color_scheme="gray")),
                justify="end",
            ),
            max_width="min(1100px, 96vw)",
            id="agent-cuts",
        ),
        open=ReplayState.cuts_open,
        on_open_change=ReplayState.set_cuts_open,
    )
