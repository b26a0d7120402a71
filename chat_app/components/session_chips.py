import reflex as rx

from chat_app.states.chat import ChatState
from chat_app.states.rows import ChipRow


def _chip(chip: rx.Var[ChipRow]) -> rx.Component:
    return rx.button(
        chip.label,
        rx.cond(chip.current, rx.text("← current", as_="span", size="1")),
        on_click=ChatState.jump_to_session(chip.number),
        variant=rx.cond(chip.current, "solid", "soft"),
        size="1",
        radius="full",
        class_name="baton-chip",
        data_session=chip.number,
        title=rx.cond(chip.loaded, "Jump to this session", "Load and jump to this session"),
    )


def session_chips() -> rx.Component:
    """Session navigator: one chip per session; a click scrolls to its divider.

    One row at any count, scrolled sideways. The chips are in the page newest first and laid
    out right to left (``row-reverse``), so they read 1, 2, 3… and the bar opens scrolled to
    its end, where the current session is, without a script.
    """
    return rx.cond(
        ChatState.chips.length() > 1,
        rx.hstack(
            rx.foreach(ChatState.chips.reverse(), _chip),
            spacing="1",
            class_name="baton-chips",
            role="navigation",
            aria_label="Sessions",
        ),
    )
