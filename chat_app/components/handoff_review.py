"""The handoff waiting for review: its v2 fields as an editable form above the composer."""

import reflex as rx

from chat_app.states.reset_control import REVIEW_FIELDS, ResetControlState


def _field(name: str, label: str, kind: str) -> rx.Component:
    return rx.vstack(
        rx.el.label(label, html_for=f"review-{name}", class_name="baton-review-label"),
        rx.text_area(
            name=name,
            id=f"review-{name}",
            default_value=ResetControlState.review_values[name],
            rows="2" if kind == "text" else "3",
            width="100%",
        ),
        spacing="1",
        width="100%",
    )


def handoff_review() -> rx.Component:
    """Confirm (with edits) or discard the handoff before the new session's first model call."""
    state = ResetControlState
    return rx.cond(
        state.review_session > 0,
        rx.form(
            rx.vstack(
                rx.heading("Review the handoff to session ", state.review_session, size="3"),
                rx.text(
                    "The new session starts from this. Edit it, then confirm; or discard it "
                    "to start without it. Messages you send wait with it.",
                    size="1",
                ),
                *[_field(name, label, kind) for name, label, kind in REVIEW_FIELDS],
                rx.cond(
                    state.review_files.length() > 0,
                    rx.box(
                        rx.text("Files modified (kept as written)", size="1", weight="medium"),
                        rx.foreach(state.review_files, lambda f: rx.text(f, size="1")),
                        width="100%",
                    ),
                ),
                rx.cond(
                    state.review_error != "",
                    rx.text(state.review_error, color_scheme="red", size="1", id="review-error"),
                ),
                rx.hstack(
                    rx.button(
                        "Confirm and continue",
                        type="submit",
                        id="review-confirm",
                        loading=state.acting,
                    ),
                    rx.button(
                        "Discard handoff",
                        type="button",
                        id="review-discard",
                        variant="soft",
                        color_scheme="red",
                        on_click=state.discard_review,
                        disabled=state.acting,
                    ),
                    spacing="2",
                    wrap="wrap",
                ),
                spacing="2",
                width="100%",
            ),
            on_submit=state.confirm_review,
            reset_on_submit=False,
            key=state.review_session,
            id="handoff-review",
            class_name="baton-handoff-review",
        ),
    )
