import reflex as rx

from chat_app.components.safe_markdown import safe_markdown

# Above either limit a message is shown collapsed, with a "Show more" toggle.
LONG_MESSAGE_CHARS = 4000
LONG_MESSAGE_LINES = 40


def message_text(content: rx.Var[str]) -> rx.Component:
    """A message's Markdown, collapsed to a fixed height when it is long.

    The whole text stays in the page (find, select and the copy button get all of it); only
    CSS clips it. The toggle is a checkbox the stylesheet reads with ``:has()``, so it needs
    no state round trip and no script.
    """
    is_long = (content.length() > LONG_MESSAGE_CHARS) | (
        content.split("\n").length() > LONG_MESSAGE_LINES
    )
    return rx.box(
        rx.box(safe_markdown(content), class_name="baton-message-body"),
        rx.cond(
            is_long,
            rx.el.label(
                rx.el.input(type="checkbox", class_name="baton-more-toggle"),
                rx.el.span("Show more", class_name="baton-more-closed"),
                rx.el.span("Show less", class_name="baton-more-open"),
                class_name="baton-more",
            ),
        ),
        class_name="baton-message-text",
        data_long=rx.cond(is_long, "true", "false"),
    )
