import reflex as rx

from chat_app.components.fold import fold
from chat_app.states.rows import FileRow, HandoffCard

# Past either, a line of the card shows its first four lines and "Show more".
LONG_LINE_CHARS = 320
LONG_LINE_LINES = 4


def _section(title: str, items: rx.Var[list[str]], icon: rx.Component, kind: str) -> rx.Component:
    return rx.cond(
        items.length() > 0,
        rx.box(
            rx.text(title, size="1", weight="bold", class_name="baton-handoff-title"),
            rx.el.ul(
                rx.foreach(items, lambda text: rx.el.li(icon, rx.text(text, as_="span"))),
                class_name=f"baton-handoff-list baton-{kind}",
            ),
        ),
    )


def _collapsed(title: str, items: rx.Var[list[str]], kind: str) -> rx.Component:
    """A long list folded to its title and count (user messages, errors)."""
    return rx.cond(
        items.length() > 0,
        rx.el.details(
            rx.el.summary(
                rx.text(title, " (", items.length(), ")", size="1", weight="bold", as_="span"),
            ),
            rx.el.ul(
                rx.foreach(items, lambda text: rx.el.li(text)),
                class_name=f"baton-handoff-list baton-{kind}",
            ),
            class_name="baton-decisions-box",
        ),
    )


def _line(label: str, value: rx.Var[str], kind: str) -> rx.Component:
    """A labelled line of the card (Goal, Next), folded to a few lines when long: a goal
    quoted from a pasted request was a 2,900-character wall above the rest of the card."""
    text = value.to(str)
    is_long = (text.length() > LONG_LINE_CHARS) | (text.split("\n").length() > LONG_LINE_LINES)
    return rx.cond(
        value != "",
        fold(
            rx.text(
                rx.text(label, weight="bold", as_="span"),
                value,
                size="2",
                class_name=f"baton-handoff-{kind} baton-handoff-line",
            ),
            is_long,
            "baton-handoff-fold",
        ),
    )


def _file(entry: rx.Var[FileRow]) -> rx.Component:
    return rx.el.li(
        rx.code(entry.path, variant="ghost"),
        rx.cond(entry.verified, rx.icon("badge-check", size=12, title="proved by a tool call")),
    )


def handoff_summary(card: rx.Var[HandoffCard]) -> rx.Component:
    """The handoff card: a one-line preview that opens, in the browser, to the full artifact."""
    return rx.el.details(
        rx.el.summary(
            rx.icon("chevron-right", size=14, class_name="baton-chevron"),
            rx.text(card.card_title, weight="medium", as_="span", flex_shrink="0"),
            rx.text(card.preview, as_="span", color_scheme="gray", class_name="baton-ellipsis"),
            class_name="baton-handoff-summary",
        ),
        rx.vstack(
            rx.cond(
                card.focus != "",
                rx.text(
                    "Focus: ",
                    card.focus,
                    size="2",
                    color_scheme="gray",
                    class_name="baton-handoff-focus",
                ),
            ),
            _line("Goal: ", card.goal, "goal"),
            rx.cond(
                card.state_summary != "",
                rx.text(
                    card.state_summary, weight="bold", size="2", class_name="baton-handoff-state"
                ),
            ),
            _line("Next: ", card.next_step, "next"),
            _section("Constraints", card.constraints, rx.icon("shield", size=12), "rules"),
            _section(
                "Completed",
                card.completed_work,
                rx.icon("check", size=14, color=rx.color("grass", 10)),
                "done",
            ),
            _section(
                "In progress",
                card.in_progress,
                rx.icon("circle-dot", size=12, color=rx.color("amber", 10)),
                "doing",
            ),
            _section("Remaining", card.remaining_tasks, rx.icon("dot", size=14), "todo"),
            rx.cond(
                card.key_decisions.length() > 0,
                rx.el.details(
                    rx.el.summary(
                        rx.text(
                            "Key decisions (",
                            card.key_decisions.length(),
                            ")",
                            size="1",
                            weight="bold",
                            as_="span",
                        ),
                    ),
                    rx.el.ul(
                        rx.foreach(card.key_decisions, lambda text: rx.el.li(text)),
                        class_name="baton-handoff-list baton-decisions",
                    ),
                    class_name="baton-decisions-box",
                ),
            ),
            _collapsed("User messages", card.user_messages, "requests"),
            _collapsed("Errors and fixes", card.errors_and_fixes, "errors"),
            rx.cond(
                card.files_modified.length() > 0,
                rx.box(
                    rx.text(
                        "Files modified", size="1", weight="bold", class_name="baton-handoff-title"
                    ),
                    rx.el.ul(
                        rx.foreach(card.files_modified, _file),
                        class_name="baton-handoff-list baton-files",
                    ),
                ),
            ),
            rx.cond(
                card.disagreements.length() > 0,
                rx.box(
                    rx.text(
                        "Corrected from the evidence",
                        size="1",
                        weight="bold",
                        class_name="baton-handoff-title",
                    ),
                    rx.el.ul(
                        rx.foreach(card.disagreements, lambda text: rx.el.li(text)),
                        class_name="baton-handoff-list baton-disagreements",
                    ),
                ),
            ),
            rx.cond(
                card.checks != "",
                rx.text(
                    "Checked against the raw messages: ",
                    card.checks,
                    size="1",
                    color_scheme="gray",
                    class_name="baton-handoff-checks",
                ),
            ),
            rx.cond(
                card.handoff_markdown != "",
                rx.link(
                    rx.hstack(
                        rx.icon("download", size=14),
                        rx.text(card.handoff_filename),
                        spacing="1",
                        align="center",
                    ),
                    href="#",
                    on_click=rx.download(
                        data=card.handoff_markdown,
                        filename=card.handoff_filename,
                        mime_type="text/markdown",
                    ).prevent_default,
                    size="2",
                    class_name="baton-handoff-download",
                ),
            ),
            spacing="2",
            align="start",
            class_name="baton-handoff-body",
        ),
        class_name="baton-handoff",
    )
