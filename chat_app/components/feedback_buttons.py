import reflex as rx

from chat_app.states.feedback_state import FeedbackState
from chat_app.states.rows import TimelineRow


def _thumb(row: rx.Var[TimelineRow], rating: str, icon: str, label: str) -> rx.Component:
    pressed = FeedbackState.ratings[row.seq.to_string()] == rating
    return rx.icon_button(
        rx.icon(icon, size=14),
        on_click=FeedbackState.rate(row.seq, rating),
        variant=rx.cond(pressed, "soft", "ghost"),
        size="1",
        color_scheme=rx.cond(pressed, "iris", "gray"),
        aria_label=label,
        aria_pressed=rx.cond(pressed, "true", "false"),
        title=label,
        class_name=f"baton-rate-{rating}",
    )


def _note(row: rx.Var[TimelineRow]) -> rx.Component:
    return rx.popover.root(
        rx.popover.trigger(
            rx.icon_button(
                rx.icon("message-square-text", size=14),
                variant="ghost",
                size="1",
                color_scheme="gray",
                aria_label="Add a note to your rating",
                title="Add a note to your rating",
                class_name="baton-rate-note",
            ),
        ),
        rx.popover.content(
            rx.form(
                rx.vstack(
                    rx.text_area(
                        name="note",
                        placeholder="What was good or wrong about this reply? (optional)",
                        max_length=2000,
                        rows="3",
                        width="100%",
                    ),
                    rx.el.input(type="hidden", name="seq", value=row.seq.to_string()),
                    rx.popover.close(rx.button("Save note", type="submit", size="1")),
                    align="end",
                    width="100%",
                ),
                on_submit=FeedbackState.save_note,
                reset_on_submit=True,
            ),
            width="320px",
            max_width="90vw",
        ),
    )


def feedback_buttons(row: rx.Var[TimelineRow]) -> rx.Component:
    """Thumbs up or down on a stored reply; once rated, a note can go with it."""
    rated = FeedbackState.ratings.contains(row.seq.to_string())
    return rx.hstack(
        _thumb(row, "up", "thumbs-up", "Good reply"),
        _thumb(row, "down", "thumbs-down", "Bad reply"),
        rx.cond(rated, _note(row)),
        spacing="1",
        align="center",
        class_name="baton-feedback",
    )
