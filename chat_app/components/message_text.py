import reflex as rx

from chat_app.components.fold import fold
from chat_app.components.safe_markdown import safe_markdown

# Above either limit a message is shown collapsed, with a "Show more" toggle.
LONG_MESSAGE_CHARS = 4000
LONG_MESSAGE_LINES = 40
# What the user sent collapses sooner: a pasted log or file is read once, and a tall bubble
# pushes the reply it asked for out of view (a 2,900-character message was 1,066 px high).
LONG_USER_CHARS = 1000
LONG_USER_LINES = 12


def message_text(content: rx.Var[str], is_user: rx.Var[bool]) -> rx.Component:
    """A message's Markdown, collapsed to a fixed height when it is long.

    The whole text stays in the page (find, select and the copy button get all of it):
    see :func:`fold`.
    """
    lines = content.split("\n").length()
    is_long = (
        (content.length() > LONG_MESSAGE_CHARS)
        | (lines > LONG_MESSAGE_LINES)
        | (is_user & ((content.length() > LONG_USER_CHARS) | (lines > LONG_USER_LINES)))
    )
    return fold(safe_markdown(content), is_long, "baton-message-text", "baton-message-body")
