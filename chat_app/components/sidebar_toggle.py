import reflex as rx


def sidebar_toggle() -> rx.Component:
    """Shows or hides the chat list (a drawer on a phone); /baton-layout.js does the work."""
    return rx.icon_button(
        rx.icon("panel-left", size=18),
        on_click=rx.call_script("window.batonLayout && window.batonLayout.toggle()"),
        variant="ghost",
        color_scheme="gray",
        id="sidebar-toggle",
        aria_label="Show or hide the chat list",
        aria_controls="sidebar",
        title="Chat list (Ctrl+Shift+S)",
    )
