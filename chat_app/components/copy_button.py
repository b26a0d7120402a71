import reflex as rx


def copy_button(text: rx.Var[str]) -> rx.Component:
    """Copy ``text`` to the clipboard, entirely in the browser."""
    return rx.icon_button(
        rx.icon("copy", size=14),
        on_click=[rx.set_clipboard(text), rx.toast("Copied", duration=1200)],
        variant="ghost",
        size="1",
        color_scheme="gray",
        aria_label="Copy message",
        title="Copy",
    )
