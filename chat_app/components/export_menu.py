import reflex as rx

from chat_app.states.export_state import ExportState


def export_menu() -> rx.Component:
    """The chat's menu: download it as Markdown or as JSON."""
    return rx.dropdown_menu.root(
        rx.dropdown_menu.trigger(
            rx.icon_button(
                rx.icon("ellipsis", size=14),
                size="1",
                variant="soft",
                aria_label="Chat menu",
                title="Chat menu",
                id="chat-menu",
            ),
        ),
        rx.dropdown_menu.content(
            rx.dropdown_menu.item(
                rx.icon("file-text", size=14),
                "Export as Markdown",
                on_select=ExportState.download("markdown"),
                id="export-markdown",
            ),
            rx.dropdown_menu.item(
                rx.icon("braces", size=14),
                "Export as JSON",
                on_select=ExportState.download("json"),
                id="export-json",
            ),
        ),
    )
