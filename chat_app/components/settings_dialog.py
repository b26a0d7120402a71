"""The settings dialog (theme, Enter to send, default assistant, density), and what applies
them on every page: data attributes /baton-layout.js turns into the page's own."""

import reflex as rx
from reflex.style import set_color_mode

from chat_app.states.settings_state import SettingsState
from chat_app.states.thread_list import ThreadListState


def _choice(label: str, name: str, value, options: list[tuple[str, str]]) -> rx.Component:
    return rx.el.label(
        rx.text(label, size="2", weight="medium"),
        rx.el.select(
            *(rx.el.option(text, value=key) for key, text in options),
            name=name,
            # Uncontrolled, shown anew (key) when the stored value arrives.
            default_value=value,
            key=value,
            class_name="baton-settings-select",
        ),
        class_name="baton-settings-field",
    )


def settings_applied() -> rx.Component:
    """Hidden: the settings as data attributes, and the buttons that set the color mode
    (pressed by /baton-layout.js when the theme setting differs from what shows)."""
    return rx.box(
        *(
            rx.el.button(
                type="button",
                hidden=True,
                id=f"baton-theme-{mode}",
                on_click=set_color_mode(mode),
            )
            for mode in ("system", "light", "dark")
        ),
        id="baton-settings",
        hidden=True,
        data_theme=SettingsState.theme,
        data_enter_sends=rx.cond(SettingsState.enter_sends, "on", "off"),
        data_density=SettingsState.density,
    )


def settings_dialog() -> rx.Component:
    """A gear in the sidebar's footer opening the user's settings."""
    return rx.dialog.root(
        rx.dialog.trigger(
            rx.icon_button(
                rx.icon("settings", size=16),
                variant="ghost",
                aria_label="Settings",
                title="Settings",
                id="settings-open",
            )
        ),
        rx.dialog.content(
            rx.dialog.title("Settings"),
            rx.dialog.description(
                "Yours on every device you use Baton on.", size="2", color_scheme="gray"
            ),
            rx.form(
                rx.vstack(
                    _choice(
                        "Theme",
                        "theme",
                        SettingsState.theme,
                        [("system", "As the system"), ("light", "Light"), ("dark", "Dark")],
                    ),
                    _choice(
                        "Enter",
                        "enter_sends",
                        rx.cond(SettingsState.enter_sends, "on", "off"),
                        [
                            ("on", "Enter sends (Shift+Enter: new line)"),
                            ("off", "Enter is a new line (Ctrl+Enter sends)"),
                        ],
                    ),
                    rx.el.label(
                        rx.text("New chats start with", size="2", weight="medium"),
                        rx.el.select(
                            rx.el.option("The first assistant", value=""),
                            rx.foreach(
                                ThreadListState.assistants,
                                lambda a: rx.el.option(a.label, value=a.id),
                            ),
                            name="default_assistant_id",
                            default_value=SettingsState.default_assistant_id,
                            key=SettingsState.default_assistant_id,
                            class_name="baton-settings-select",
                        ),
                        class_name="baton-settings-field",
                    ),
                    _choice(
                        "Density",
                        "density",
                        SettingsState.density,
                        [("comfortable", "Comfortable"), ("compact", "Compact")],
                    ),
                    rx.cond(
                        SettingsState.error != "",
                        rx.text(SettingsState.error, color_scheme="red", size="2"),
                    ),
                    rx.hstack(
                        rx.dialog.close(
                            rx.button("Cancel", variant="soft", color_scheme="gray", type="button")
                        ),
                        rx.button("Save", type="submit", id="settings-save"),
                        justify="end",
                        width="100%",
                    ),
                    spacing="3",
                    width="100%",
                ),
                on_submit=SettingsState.save,
            ),
            max_width="420px",
        ),
    )
