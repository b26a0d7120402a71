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


def _session_menu() -> rx.Component:
    # Every session in one list: quicker than scrolling fifty chips sideways on a phone.
    return rx.menu.root(
        rx.menu.trigger(
            rx.icon_button(
                rx.icon("list", size=14),
                variant="soft",
                size="1",
                radius="full",
                aria_label="All sessions",
                title="All sessions",
                id="session-menu",
            ),
        ),
        rx.menu.content(
            rx.foreach(
                ChatState.chips,
                lambda chip: rx.menu.item(
                    chip.label,
                    rx.cond(chip.current, rx.text(" (current)", as_="span", size="1")),
                    on_select=ChatState.jump_to_session(chip.number),
                    class_name="baton-session-menu-item",
                    data_session=chip.number,
                ),
            ),
            class_name="baton-session-menu",
        ),
    )


def session_chips() -> rx.Component:
    """Session navigator: one chip per session; a click scrolls to its divider.

    One row at any count, scrolled sideways, with a menu of every session beside it. The
    chips are in the page newest first and laid out right to left (``row-reverse``), so they
    read 1, 2, 3… and the bar opens scrolled to its end, where the current session is,
    without a script.
    """
    return rx.cond(
        ChatState.chips.length() > 1,
        rx.hstack(
            _session_menu(),
            rx.hstack(
                rx.foreach(ChatState.chips.reverse(), _chip),
                spacing="1",
                class_name="baton-chips",
                role="navigation",
                aria_label="Sessions",
            ),
            spacing="1",
            align="center",
            width="100%",
            class_name="baton-chip-bar",
        ),
    )
