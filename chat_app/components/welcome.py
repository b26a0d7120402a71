import json

import reflex as rx

from chat_app.states.new_chat import NewChatState
from chat_app.states.thread_list import ThreadListState

EXAMPLE_TASKS = (
    "Write a CSV parser for invoices in Python, with tests",
    "Plan a small command-line todo app, then build it step by step",
    "Review a config loader for bugs and fix what you find",
)


def _example(task: str) -> rx.Component:
    return rx.button(
        task,
        on_click=rx.call_script(
            f"window.batonLayout && window.batonLayout.fill({json.dumps(task)})"
        ),
        variant="surface",
        color_scheme="gray",
        class_name="baton-example",
        height="auto",
        white_space="normal",
        text_align="left",
        padding="0.6em 0.9em",
    )


def welcome() -> rx.Component:
    """The empty new chat: on a first visit what Baton is for, with tasks to try."""
    return rx.center(
        rx.cond(
            NewChatState.first_visit,
            rx.vstack(
                rx.heading("Welcome to Baton", size="6"),
                rx.text(
                    "Baton is a chat for long tasks with an AI agent that writes files, runs "
                    "commands and keeps a todo list. When the agent's context window fills, it "
                    "hands the work to a fresh session with a written summary of what is done "
                    "and what is left, and you see each handoff right in the conversation.",
                    color_scheme="gray",
                    id="welcome-text",
                ),
                rx.text("Try one:", size="2", weight="medium", margin_top="0.5em"),
                rx.vstack(
                    *[_example(task) for task in EXAMPLE_TASKS],
                    spacing="2",
                    width="100%",
                    id="example-tasks",
                ),
                spacing="3",
                max_width="36em",
                id="welcome",
            ),
            rx.vstack(
                rx.heading("What should we work on?", size="5"),
                rx.text(ThreadListState.chosen_assistant, size="2", color_scheme="gray"),
                align="center",
                spacing="2",
            ),
        ),
        width="100%",
        padding_y="10vh",
        padding_x="1em",
    )
