"""The MCP servers of the assistant selected on `/admin`: list, check, remove, add."""

import reflex as rx

from chat_app.states.mcp_admin_state import McpAdminState, McpServerRow


def _server(row: rx.Var[McpServerRow]) -> rx.Component:
    return rx.hstack(
        rx.vstack(
            rx.hstack(
                rx.text(row.name, weight="medium"),
                rx.badge(row.transport, variant="soft"),
                align="center",
            ),
            rx.text(
                row.where,
                size="1",
                class_name="mcp-server-where",
                style={"word_break": "break-all"},
            ),
            rx.cond(
                row.secrets != "", rx.text("Secrets: ", row.secrets, size="1", color_scheme="gray")
            ),
            spacing="1",
            flex="1",
            min_width="0",
        ),
        rx.button("Check", on_click=McpAdminState.check(row.name), size="1", variant="soft"),
        rx.button(
            "Remove",
            on_click=McpAdminState.remove(row.name),
            size="1",
            variant="soft",
            color_scheme="red",
        ),
        align="start",
        width="100%",
        class_name="mcp-server",
    )


def _add_form() -> rx.Component:
    return rx.form(
        rx.vstack(
            rx.hstack(
                rx.input(
                    name="name", placeholder="Name (prefixes its tools)", id="mcp-name", flex="1"
                ),
                rx.el.select(
                    rx.el.option("stdio command", value="stdio"),
                    rx.el.option("streamable HTTP", value="http"),
                    name="transport",
                    default_value="stdio",
                    class_name="baton-select",
                    id="mcp-transport",
                ),
                width="100%",
                wrap="wrap",
            ),
            rx.input(
                name="target",
                placeholder="Command line, or https://… URL",
                id="mcp-target",
                width="100%",
            ),
            rx.text_area(
                name="secrets",
                id="mcp-secrets",
                rows="2",
                width="100%",
                placeholder="Secrets, NAME=value a line: environment variables for a "
                "command, headers for a URL. Never shown again.",
            ),
            rx.button("Add server", type="submit", id="mcp-add", variant="outline"),
            spacing="2",
            width="100%",
        ),
        on_submit=McpAdminState.add,
        reset_on_submit=True,
        width="100%",
    )


def mcp_servers_panel() -> rx.Component:
    """The panel; it loads when mounted (keyed by the assistant, so again on a new selection)."""
    return rx.vstack(
        rx.heading("MCP servers", size="3"),
        rx.text(
            "Their tools join the agent's tools in this assistant's chats.",
            size="1",
            color_scheme="gray",
        ),
        rx.cond(
            McpAdminState.error != "",
            rx.callout(McpAdminState.error, color_scheme="red", id="mcp-error", width="100%"),
        ),
        rx.cond(
            McpAdminState.notice != "",
            rx.callout(McpAdminState.notice, color_scheme="grass", id="mcp-notice", width="100%"),
        ),
        rx.cond(
            McpAdminState.servers.length() > 0,
            rx.foreach(McpAdminState.servers, _server),
            rx.text("No MCP servers.", size="1", color_scheme="gray"),
        ),
        _add_form(),
        on_mount=McpAdminState.load,
        spacing="2",
        width="100%",
        id="mcp-servers",
    )
