"""An assistant's MCP servers on `/admin`: add, list (secrets by name only) and remove.

Behind the same grant as every admin call (:mod:`chat_app.services.admin.auth`). A server's tools
join the agent's from the next turn of every chat on the assistant.
"""

from __future__ import annotations

import re
import shlex

from pydantic import BaseModel, ConfigDict, ValidationError

from agent_core import McpServer
from agent_core.tools import MCP_NAME_PATTERN
from chat_app.db import mcp_servers as db_mcp
from chat_app.db.models import AssistantMcpServer
from chat_app.services.admin.auth import require_grant
from chat_app.services.admin.forms import SettingsRejected
from chat_app.services.runtime.backend import Backend

__all__ = [
    "McpServerForm",
    "McpServerView",
    "parse_mcp_form",
    "list_mcp_servers",
    "add_mcp_server",
    "remove_mcp_server",
    "check_mcp_server",
]

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_HEADER_NAME = re.compile(r"^[A-Za-z0-9-]+$")
_URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


class McpServerForm(BaseModel):
    """What the admin form submits, as typed."""

    model_config = ConfigDict(extra="forbid")

    name: str = ""
    transport: str = "stdio"
    target: str = ""
    """The command line (stdio) or the URL (http)."""
    secrets: str = ""
    """``NAME=value`` a line: environment variables (stdio) or HTTP headers (http)."""


class McpServerView(BaseModel):
    """A server as the admin page shows it: its secrets by name, never by value."""

    model_config = ConfigDict(extra="forbid")

    name: str
    transport: str
    where: str
    secret_names: list[str]


def _secrets(text: str, transport: str) -> dict[str, str]:
    pattern, kind = (
        (_ENV_NAME, "environment variable") if transport == "stdio" else (_HEADER_NAME, "header")
    )
    secrets: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        name, sep, value = line.partition("=")
        name = name.strip()
        if not sep or not pattern.match(name) or not value:
            raise SettingsRejected(
                f"Secrets line {number} must be NAME=value with a {kind} name "
                f"({'letters, digits and _' if transport == 'stdio' else 'letters, digits and -'}).",
                field="secrets",
                code="bad_secret",
            )
        secrets[name] = value
    return secrets


def parse_mcp_form(form: McpServerForm) -> McpServer:
    """Check the form (pure); raises :class:`SettingsRejected` with what to fix."""
    name = form.name.strip()
    if not re.match(MCP_NAME_PATTERN, name):
        raise SettingsRejected(
            "Server name must be 1 to 32 letters, digits, _ or - (it prefixes "
            "the names of the server's tools).",
            field="name",
            code="bad_name",
        )
    transport, target = form.transport.strip(), form.target.strip()
    if transport not in ("stdio", "http"):
        raise SettingsRejected(
            "Transport must be stdio (a command) or http (a URL).",
            field="transport",
            code="bad_transport",
        )
    # The target typed under the other transport: say which one it needs (a URL run as a
    # command would fail only when checked, with a hint about commands).
    if transport == "stdio" and _URL_SCHEME.match(target):
        raise SettingsRejected(
            "That is a URL, not a command: choose “streamable HTTP” for a "
            "server reached by URL (stdio starts a program here).",
            field="target",
            code="url_not_command",
        )
    if transport == "http" and target and not _URL_SCHEME.match(target):
        raise SettingsRejected(
            "That is not a URL: choose “stdio command” for a server started "
            "by a command, or give its streamable-HTTP URL, starting with "
            "http:// or https://.",
            field="target",
            code="not_a_url",
        )
    secrets = _secrets(form.secrets, transport)
    try:
        if transport == "stdio":
            try:
                words = shlex.split(target)
            except ValueError as exc:
                raise SettingsRejected(
                    f"The command has {exc}.", field="target", code="bad_command"
                ) from None
            if not words:
                raise SettingsRejected(
                    "Give the command that starts the server, e.g. "
                    "npx -y @modelcontextprotocol/server-everything.",
                    field="target",
                    code="no_command",
                )
            return McpServer(
                name=name,
                transport="stdio",
                command=words[0],
                args=tuple(words[1:]),
                secrets=secrets,
            )
        if not re.match(r"^https?://[^\s/]+", target):
            raise SettingsRejected(
                "Give the server's streamable-HTTP URL, starting with http:// or https://.",
                field="target",
                code="no_url",
            )
        return McpServer(name=name, transport="http", url=target, secrets=secrets)
    except ValidationError as error:
        raise SettingsRejected("; ".join(e["msg"] for e in error.errors())) from None


def _view(server: McpServer) -> McpServerView:
    return McpServerView(
        name=server.name,
        transport=server.transport,
        where=server.where(),
        secret_names=sorted(server.secrets),
    )


def list_mcp_servers(app: Backend, grant: str | None, assistant_id: str) -> list[McpServerView]:
    require_grant(app, grant)
    with app.read() as db:
        return [
            _view(db_mcp.as_server(row))
            for row in db_mcp.list_mcp_servers(session=db, assistant_id=assistant_id)
        ]


def add_mcp_server(
    app: Backend, grant: str | None, assistant_id: str, form: McpServerForm
) -> McpServerView:
    """Store the server; :class:`SettingsRejected` for a bad form or a name already used."""
    require_grant(app, grant)
    server = parse_mcp_form(form)
    row = AssistantMcpServer(
        assistant_id=assistant_id,
        name=server.name,
        transport=server.transport,
        command=server.command,
        args=list(server.args),
        url=server.url,
        secrets=dict(server.secrets),
    )
    with app.write() as db:
        if not db_mcp.add_mcp_server(session=db, server=row):
            raise SettingsRejected(
                f"This assistant already has a server called {server.name}; "
                "remove it first or pick another name.",
                field="name",
                code="name_taken",
            )
    return _view(server)


def remove_mcp_server(app: Backend, grant: str | None, assistant_id: str, name: str) -> bool:
    require_grant(app, grant)
    with app.write() as db:
        return db_mcp.remove_mcp_server(session=db, assistant_id=assistant_id, name=name)


async def check_mcp_server(app: Backend, grant: str | None, assistant_id: str, name: str) -> str:
    """Start the server as a turn would and say which tools it offers, or why it cannot."""
    require_grant(app, grant)
    with app.read() as db:
        rows = [
            row
            for row in db_mcp.list_mcp_servers(session=db, assistant_id=assistant_id)
            if row.name == name
        ]
    if not rows:
        return f"There is no server called {name}."
    load = await app.toolbox.load([db_mcp.as_server(rows[0])])
    if load.problems:
        return load.problems[0]
    names = ", ".join(tool.name for tool in load.tools) or "none"
    return f"{name} works: {len(load.tools)} tools ({names})."
