"""The warn notice above the composer: the context passed the warn threshold; three actions."""

import reflex as rx

from chat_app.states.reset_control import ResetControlState


def reset_notice() -> rx.Component:
    """Shown while the last model call's utilization is past the assistant's warn threshold
    and the user has not deferred."""
    state = ResetControlState
    return rx.cond(
        state.notice_percent > 0,
        rx.box(
            rx.text(
                "Context at ", state.notice_percent, "% — past the warn threshold (",
                state.warn_percent, "%). The next automatic ", state.action, " comes at ",
                state.trigger_percent, "%.",
                size="2", weight="medium",
            ),
            rx.hstack(
                rx.button("Hand off now", on_click=state.hand_off_now, id="notice-handoff",
                          size="1", disabled=state.acting),
                rx.button("Compact now", on_click=state.compact_now, id="notice-compact",
                          size="1", variant="soft", loading=state.acting),
                rx.button("Not yet", on_click=state.not_yet, id="notice-defer", size="1",
                          variant="outline", color_scheme="gray", disabled=state.acting,
                          title="Skip the next automatic step once (never past 95% of the window)"),
                spacing="2",
                wrap="wrap",
            ),
            id="reset-notice",
            data_percent=state.notice_percent,
            role="status",
            class_name="baton-reset-notice",
        ),
    )
