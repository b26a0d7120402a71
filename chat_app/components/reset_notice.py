"""The warn notice above the composer: the context passed the warn threshold; three actions."""

import reflex as rx

from chat_app.states.chat import ChatState
from chat_app.states.reset_control import ResetControlState


def _not_yet() -> rx.Component:
    """ "Not yet", or, once used, the same button shown armed until an automatic step uses it."""
    state = ResetControlState
    return rx.cond(
        state.deferred,
        rx.button(
            "Not yet · armed",
            id="notice-defer",
            size="1",
            variant="solid",
            color_scheme="gray",
            disabled=True,
            aria_pressed="true",
            data_armed="true",
            title="The next automatic step is skipped once (never past 95% of the window)",
        ),
        rx.button(
            "Not yet",
            on_click=state.not_yet,
            id="notice-defer",
            size="1",
            variant="outline",
            color_scheme="gray",
            disabled=state.acting,
            aria_pressed="false",
            data_armed="false",
            title="Skip the next automatic step once (never past 95% of the window)",
        ),
    )


def reset_notice() -> rx.Component:
    """A property of the chat, not of a turn: shown while the meter's utilization (the open
    session's, live in every tab, read again on a reload) is at or past the assistant's warn
    threshold, unless a handoff waits for review or a reset or handoff is running."""
    state = ResetControlState
    meter = ChatState.meter
    past_warn = meter.percent >= state.warn_percent
    # Idle, and the last turns' growth says the next turn crosses the trigger: warn now,
    # while something can still be done about it.
    ahead = (
        (ChatState.activity == "idle")
        & (state.trigger_percent > 0)
        & (state.next_turn_percent >= state.trigger_percent)
    )
    due = (
        (state.warn_percent > 0)
        & (past_warn | ahead)
        & (state.review_session == 0)
        & ~ChatState.resetting
        & ~ChatState.handoff_running
    )
    return rx.cond(
        due,
        rx.box(
            rx.cond(
                meter.over_window,
                # Past the window, "the next automatic reset comes at 80%" would be a threshold
                # already behind it.
                rx.text(
                    meter.said,
                    ": the next turn starts with the automatic ",
                    state.action,
                    ".",
                    size="2",
                    weight="medium",
                ),
                rx.cond(
                    past_warn,
                    rx.text(
                        meter.said,
                        " — past the warn threshold (",
                        state.warn_percent,
                        "%). The next automatic ",
                        state.action,
                        " comes at ",
                        state.trigger_percent,
                        "%.",
                        size="2",
                        weight="medium",
                    ),
                    rx.text(
                        meter.said,
                        " — the next turn will likely pass ",
                        state.trigger_percent,
                        "%, where the automatic ",
                        state.action,
                        " comes: at the last turns' pace it would end at about ",
                        state.next_turn_percent,
                        "%.",
                        size="2",
                        weight="medium",
                    ),
                ),
            ),
            rx.hstack(
                rx.button(
                    "Hand off now",
                    on_click=state.hand_off_now,
                    id="notice-handoff",
                    size="1",
                    disabled=state.acting,
                ),
                rx.cond(  # offered only when there is an older part to summarize
                    state.compactable,
                    rx.button(
                        "Compact now",
                        on_click=state.compact_now,
                        id="notice-compact",
                        size="1",
                        variant="soft",
                        loading=state.acting,
                    ),
                ),
                _not_yet(),
                spacing="2",
                wrap="wrap",
            ),
            id="reset-notice",
            data_percent=meter.rounded,
            role="status",
            class_name="baton-reset-notice",
        ),
    )
