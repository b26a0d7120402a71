import reflex as rx

from chat_app.states.commands_notice import CommandsNoticeState


def commands_notice() -> rx.Component:
    """A quiet note above the composer when the assistant cannot run commands here."""
    return rx.cond(
        CommandsNoticeState.note != "",
        rx.callout(
            CommandsNoticeState.note,
            icon="info",
            color_scheme="gray",
            variant="surface",
            size="1",
            id="commands-notice",
            width="100%",
            class_name="baton-commands-notice",
        ),
    )
