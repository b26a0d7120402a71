import reflex as rx


def theme_toggle() -> rx.Component:
    """Switch between light and dark; the choice is kept by the browser."""
    return rx.icon_button(
        rx.color_mode_cond(light=rx.icon("moon", size=16), dark=rx.icon("sun", size=16)),
        on_click=rx.toggle_color_mode,
        variant="ghost",
        aria_label="Toggle light/dark theme",
        title="Toggle light/dark theme",
    )
