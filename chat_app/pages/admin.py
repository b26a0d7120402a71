"""`/admin`: per-assistant model and context-strategy settings, behind a password."""

import reflex as rx

from chat_app.components.app_header import app_header
from chat_app.components.delete_assistant import delete_assistant
from chat_app.components.mcp_servers_panel import mcp_servers_panel
from chat_app.components.reset_control_fields import reset_control_fields
from chat_app.states.admin_state import AdminState, AssistantRow

NOINDEX = [{"name": "robots", "content": "noindex, nofollow"}]


def _field_error(name: str) -> rx.Component:
    """The refusal about this field, right under it."""
    return rx.cond(
        AdminState.field_errors.contains(name),
        rx.text(
            AdminState.field_errors.get(name, ""),
            size="1",
            role="alert",
            class_name="baton-field-error",
            id=f"{name}-error",
        ),
    )


def _field(label: str, name: str, **props) -> rx.Component:
    invalid = AdminState.field_errors.contains(name)
    return rx.vstack(
        rx.text(label, size="1", weight="medium", as_="label", html_for=f"admin-{name}"),
        rx.input(
            name=name,
            default_value=AdminState.form.get(name, ""),
            width="100%",
            id=f"admin-{name}",
            aria_invalid=rx.cond(invalid, "true", "false"),
            aria_describedby=f"{name}-error",
            color_scheme=rx.cond(invalid, "red", "indigo"),
            **props,
        ),
        _field_error(name),
        spacing="1",
        width="100%",
    )


def _assistant(row: rx.Var[AssistantRow]) -> rx.Component:
    return rx.button(
        rx.vstack(
            rx.text(row.name, weight="medium"),
            rx.text(row.model, " · ", row.strategy, size="1"),
            spacing="0",
            align="start",
        ),
        on_click=AdminState.select(row.id),
        variant=rx.cond(row.id == AdminState.selected_id, "solid", "soft"),
        width="100%",
        height="auto",
        padding="0.5em",
        class_name="admin-assistant",
    )


def _editor() -> rx.Component:
    return rx.form(
        rx.vstack(
            _field("Name", "name"),
            _field("Model (provider:model, or simulator)", "model"),
            rx.text(AdminState.model_note, size="1", color_scheme="gray", id="admin-model-note"),
            rx.vstack(
                rx.text("System prompt", size="1", weight="medium"),
                _field_error("system_prompt"),
                rx.text_area(
                    name="system_prompt",
                    default_value=AdminState.form.get("system_prompt", ""),
                    rows="5",
                    width="100%",
                ),
                spacing="1",
                width="100%",
            ),
            rx.vstack(
                rx.text(
                    "Context strategy (auto resolves to ",
                    AdminState.effective_strategy,
                    " for this model)",
                    size="1",
                    weight="medium",
                    id="admin-effective",
                ),
                rx.el.select(
                    rx.el.option("auto", value="auto"),
                    rx.el.option("compact", value="compact"),
                    rx.el.option("reset", value="reset"),
                    name="context_strategy",
                    aria_describedby="context_strategy-error",
                    default_value=AdminState.form.get("context_strategy", "auto"),
                    class_name="baton-select",
                ),
                spacing="1",
                width="100%",
            ),
            rx.flex(
                _field(
                    "Mask threshold, % (empty = no masking)", "mask_threshold", input_mode="decimal"
                ),
                _field("Compact threshold, %", "compact_threshold", input_mode="decimal"),
                _field("Reset threshold, %", "reset_threshold", input_mode="decimal"),
                width="100%",
                gap="3",
                class_name="baton-admin-row",
            ),
            rx.flex(
                _field("Keep recent tokens", "keep_recent_tokens", input_mode="numeric"),
                _field(
                    "Window override (tokens; empty: the model's window)",
                    "window_override",
                    input_mode="numeric",
                ),
                width="100%",
                gap="3",
                class_name="baton-admin-row",
            ),
            rx.text(AdminState.window_note, size="1", weight="medium", id="admin-window"),
            rx.vstack(
                rx.text("Pinned paths (one per line)", size="1", weight="medium"),
                _field_error("pinned_paths"),
                rx.text_area(
                    name="pinned_paths",
                    default_value=AdminState.form.get("pinned_paths", ""),
                    rows="3",
                    width="100%",
                ),
                spacing="1",
                width="100%",
            ),
            rx.vstack(
                rx.text(
                    "History tools (search_history, read_history over the originals)",
                    size="1",
                    weight="medium",
                ),
                rx.el.select(
                    rx.el.option("on", value="on"),
                    rx.el.option("off", value="off"),
                    name="history_tools",
                    default_value=AdminState.form.get("history_tools", "on"),
                    class_name="baton-select",
                ),
                spacing="1",
                width="100%",
            ),
            reset_control_fields(),
            _field_error("warn_threshold"),
            _field_error("review_handoffs"),
            rx.vstack(
                rx.text(
                    "Network for commands (run_command of a real model; off: none at all)",
                    size="1",
                    weight="medium",
                ),
                rx.el.select(
                    rx.el.option("off", value="off"),
                    rx.el.option("on", value="on"),
                    name="sandbox_network",
                    default_value=AdminState.form.get("sandbox_network", "off"),
                    class_name="baton-select",
                ),
                spacing="1",
                width="100%",
            ),
            _field_error("sandbox_network"),
            _field_error("context_strategy"),
            _field_error("history_tools"),
            rx.button("Save", type="submit", id="admin-save"),
            spacing="3",
            width="100%",
        ),
        on_submit=AdminState.save,
        reset_on_submit=False,
        key=AdminState.selected_id,
        width="100%",
    )


def _signed_in() -> rx.Component:
    return rx.hstack(
        rx.vstack(
            rx.foreach(AdminState.assistants, _assistant),
            rx.button("New assistant", on_click=AdminState.create, variant="outline", width="100%"),
            rx.button("Sign out", on_click=AdminState.logout, variant="ghost", size="1"),
            width="16em",
        ),
        rx.vstack(
            rx.cond(AdminState.selected_id != "", _editor()),
            rx.cond(AdminState.selected_id != "", delete_assistant()),
            rx.cond(
                AdminState.selected_id != "",
                rx.box(mcp_servers_panel(), key=AdminState.selected_id, width="100%"),
            ),
            rx.heading("Feedback on replies", size="3"),
            rx.text(AdminState.feedback_line, size="2", id="admin-feedback"),
            rx.foreach(
                AdminState.feedback_notes,
                lambda note: rx.text(note, size="1", class_name="admin-feedback-note"),
            ),
            rx.heading("History", size="3"),
            rx.cond(
                AdminState.changes.length() > 0,
                rx.foreach(
                    AdminState.changes,
                    lambda c: rx.text(c.label, size="1", class_name="admin-change"),
                ),
                rx.text("No changes yet.", size="1", color_scheme="gray"),
            ),
            flex="1",
            width="100%",
            min_width="0",
            class_name="baton-admin-editor",
        ),
        align="start",
        spacing="5",
        width="100%",
        class_name="baton-admin",
    )


def _sign_in() -> rx.Component:
    return rx.form(
        rx.hstack(
            rx.input(
                name="password", type="password", placeholder="Admin password", id="admin-password"
            ),
            rx.button("Sign in", type="submit"),
        ),
        on_submit=AdminState.login,
    )


def admin_page() -> rx.Component:
    return rx.box(
        rx.vstack(
            # Inside the page column, like every other page's header.
            app_header(rx.text("Admin", weight="medium")),
            rx.cond(
                AdminState.error != "",
                rx.callout(AdminState.error, color_scheme="red", id="admin-error"),
            ),
            rx.cond(
                AdminState.notice != "",
                rx.callout(AdminState.notice, color_scheme="grass", id="admin-notice"),
            ),
            rx.cond(
                AdminState.enabled,
                rx.cond(AdminState.signed_in, _signed_in(), _sign_in()),
                rx.text(
                    "Admin is disabled. Set the BATON_ADMIN_PASSWORD environment variable and "
                    "restart Baton to enable it.",
                    id="admin-disabled",
                ),
            ),
            spacing="4",
            class_name="baton-page",
        ),
        class_name="baton-shell",
    )
