import reflex as rx

from chat_app.components.highlighted_code import highlighted_code


def code_block(code: rx.Var[str] | str, language: rx.Var[str] | str = "", **props) -> rx.Component:
    """A fenced code block of a message: its language, a copy button, highlighted code.

    Used by :func:`~chat_app.components.safe_markdown.safe_markdown` for every ``pre``; the
    copy goes through Reflex's clipboard event (no inline script, so the CSP holds).
    """
    language = rx.Var.create(language).to(str)
    return rx.box(
        rx.hstack(
            rx.text(
                rx.cond(language != "", language, "text"),
                size="1",
                class_name="baton-code-language",
            ),
            rx.icon_button(
                rx.icon("copy", size=12),
                on_click=[rx.set_clipboard(code), rx.toast("Code copied", duration=1200)],
                variant="ghost",
                size="1",
                color_scheme="gray",
                aria_label="Copy code",
                title="Copy code",
                class_name="baton-code-copy",
            ),
            align="center",
            justify="between",
            width="100%",
            class_name="baton-code-head",
        ),
        highlighted_code(code, language=language, wrap_long_lines=True, margin="0", **props),
        class_name="baton-code",
    )
