import reflex as rx

from chat_app.components.shortcut_keys import SHORTCUTS, Shortcut, bindings_json, key_labels

# Keys of the page itself, listed with the shortcuts so the dialog tells the whole story.
_ALWAYS = (
    ("Send the message", ["Enter"]),
    ("New line in the message", ["Shift", "Enter"]),
    ("Stop the running turn", ["Esc"]),
    ("Move between controls", ["Tab"]),
)


def _keys(labels: list[str]) -> rx.Component:
    return rx.hstack(*[rx.el.kbd(label, class_name="baton-kbd") for label in labels], spacing="1")


def _row(label: str, combos: list[list[str]]) -> rx.Component:
    keys = []
    for n, labels in enumerate(combos):
        if n:
            keys.append(rx.text("or", size="1", color_scheme="gray"))
        keys.append(_keys(labels))
    return rx.hstack(
        rx.text(label, size="2", flex="1"),
        *keys,
        align="center",
        width="100%",
        class_name="baton-shortcut-row",
    )


def _shortcut(shortcut: Shortcut) -> rx.Component:
    return _row(shortcut.label, [key_labels(k) for k in shortcut.keys])


def shortcuts_help() -> rx.Component:
    """The keyboard button, the dialog it opens (also on `?`), and the key list the
    page's script reads."""
    return rx.fragment(
        rx.dialog.root(
            rx.dialog.trigger(
                rx.icon_button(
                    rx.icon("keyboard", size=16),
                    variant="ghost",
                    id="shortcuts-button",
                    aria_label="Keyboard shortcuts",
                    title="Keyboard shortcuts (?)",
                ),
            ),
            rx.dialog.content(
                rx.dialog.title("Keyboard shortcuts"),
                rx.dialog.description(
                    "Ctrl is Cmd (⌘) on a Mac. Keys without Ctrl work when "
                    "the focus is not in a text field.",
                    size="2",
                ),
                rx.vstack(
                    *[_shortcut(s) for s in SHORTCUTS],
                    rx.separator(size="4"),
                    *[_row(label, [keys]) for label, keys in _ALWAYS],
                    spacing="2",
                    width="100%",
                    margin_top="1em",
                    id="shortcuts-list",
                ),
                rx.flex(
                    rx.dialog.close(rx.button("Close", variant="soft", id="shortcuts-close")),
                    justify="end",
                    margin_top="1em",
                ),
                max_width="30em",
            ),
        ),
        rx.el.div(hidden=True, id="baton-shortcuts", data_bindings=bindings_json()),
    )
