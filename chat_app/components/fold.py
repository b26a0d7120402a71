import reflex as rx


def fold(
    body: rx.Component, is_long: rx.Var[bool], class_name: str = "", body_class: str = ""
) -> rx.Component:
    """``body`` clipped to a few lines with a "Show more" toggle when ``is_long``.

    The whole text stays in the page (find, select and copy get all of it); only CSS clips
    the box around ``body`` (of class ``body_class``) to the height the enclosing
    ``class_name`` sets in ``--baton-fold-height``. The toggle is a checkbox the stylesheet
    reads with ``:has()``: no state round trip, no script.
    """
    return rx.box(
        rx.box(body, class_name=f"baton-fold-body {body_class}".strip()),
        rx.cond(
            is_long,
            rx.el.label(
                rx.el.input(type="checkbox", class_name="baton-more-toggle"),
                rx.el.span("Show more", class_name="baton-more-closed"),
                rx.el.span("Show less", class_name="baton-more-open"),
                class_name="baton-more",
            ),
        ),
        class_name=f"baton-fold {class_name}".strip(),
        data_long=rx.cond(is_long, "true", "false"),
    )
