"""The admin form's reset-control settings: the warn threshold and "review handoffs"."""

import reflex as rx

from chat_app.states.admin_state import AdminState


def reset_control_fields() -> rx.Component:
    """Inputs named ``warn_threshold`` and ``review_handoffs`` inside the assistant form."""
    return rx.hstack(
        rx.vstack(
            rx.text(
                "Warn threshold % (empty: 10 points below the threshold that acts)",
                size="1",
                weight="medium",
            ),
            rx.input(
                name="warn_threshold",
                default_value=AdminState.form.get("warn_threshold", ""),
                placeholder="e.g. 70",
                width="100%",
            ),
            spacing="1",
            width="100%",
        ),
        rx.vstack(
            rx.text("Review handoffs before the new session starts", size="1", weight="medium"),
            rx.el.select(
                rx.el.option("off", value="off"),
                rx.el.option("on", value="on"),
                name="review_handoffs",
                default_value=AdminState.form.get("review_handoffs", "off"),
                class_name="baton-select",
            ),
            spacing="1",
            width="100%",
        ),
        width="100%",
        wrap="wrap",
    )
