"""The message box both composers share (a chat's and a new chat's draft).

The same element ids in both, so /baton-outbox.js keeps a copy of the text until the server
has stored it, and the shortcuts find the box.
"""

import reflex as rx


def message_box(placeholder, retry, on_change=None) -> list[rx.Component]:
    """The text area, the hidden client-id field /baton-outbox.js fills on submit, and the
    hidden button it presses when a send got no acknowledgement in time (``retry``)."""
    return [
        # Uncontrolled on purpose: a controlled Reflex input debounces its change events,
        # which could reach the server after the submit they belong to.
        rx.text_area(
            **({"on_change": on_change} if on_change is not None else {}),
            placeholder=placeholder,
            enter_key_submit=True,
            auto_height=True,
            rows="1",
            name="message",
            id="composer-input",
            flex="1",
            class_name="baton-composer-input",
            aria_label="Message",
        ),
        rx.el.input(type="hidden", name="client_id", default_value="", id="composer-client-id"),
        # The visit of a new chat's draft a send was made on (set by baton-outbox.js): the
        # messages sent on one visit go into the chat the first one started.
        rx.el.input(type="hidden", name="draft", default_value="", id="composer-draft"),
        rx.el.button(type="button", hidden=True, id="outbox-retry", on_click=retry),
    ]
