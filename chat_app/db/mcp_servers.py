"""Data access for assistants' MCP servers; functions take the SQLModel ``session=`` keyword.

Adding and removing a server is recorded in the assistant's history like any setting, with
the server's place but never its secrets.
"""

from __future__ import annotations

from sqlmodel import Session, col, select

from agent_core import McpServer
from agent_core.redaction import redact_argv, redact_url
from chat_app.db.models import AssistantChange, AssistantMcpServer, utcnow

__all__ = ["list_mcp_servers", "add_mcp_server", "remove_mcp_server", "as_server"]


def list_mcp_servers(*, session: Session, assistant_id: str) -> list[AssistantMcpServer]:
    """The assistant's servers, in the order they were added."""
    query = (
        select(AssistantMcpServer)
        .where(AssistantMcpServer.assistant_id == assistant_id)
        .order_by(col(AssistantMcpServer.created_at), col(AssistantMcpServer.name))
    )
    return list(session.exec(query))


def _place(server: AssistantMcpServer) -> str:
    # A URL (?token=…) or a command line (--token …) may carry a credential: the history
    # keeps where, never the key.
    return (
        " ".join([server.command, *redact_argv(server.args or [])])
        if server.transport == "stdio"
        else redact_url(server.url)
    )


def add_mcp_server(*, session: Session, server: AssistantMcpServer) -> bool:
    """Store ``server``; False (nothing stored) when the assistant has one of that name."""
    taken = session.exec(
        select(AssistantMcpServer.id).where(
            AssistantMcpServer.assistant_id == server.assistant_id,
            AssistantMcpServer.name == server.name,
        )
    ).first()
    if taken is not None:
        return False
    session.add(server)
    session.add(
        AssistantChange(
            assistant_id=server.assistant_id,
            field="mcp_server",
            previous=None,
            new=f"{server.name}: {_place(server)}",
            changed_at=utcnow(),
        )
    )
    session.commit()
    return True


def remove_mcp_server(*, session: Session, assistant_id: str, name: str) -> bool:
    """Remove the assistant's server called ``name``; False when there is none."""
    server = session.exec(
        select(AssistantMcpServer).where(
            AssistantMcpServer.assistant_id == assistant_id, AssistantMcpServer.name == name
        )
    ).first()
    if server is None:
        return False
    session.add(
        AssistantChange(
            assistant_id=assistant_id,
            field="mcp_server",
            previous=f"{server.name}: {_place(server)}",
            new=None,
            changed_at=utcnow(),
        )
    )
    session.delete(server)
    session.commit()
    return True


def as_server(row: AssistantMcpServer) -> McpServer:
    """The stored server as the engine's :class:`~agent_core.tools._mcp.McpServer`."""
    return McpServer(
        name=row.name,
        transport=row.transport,  # type: ignore[arg-type]
        command=row.command,
        args=tuple(row.args or ()),
        url=row.url,
        secrets={str(k): str(v) for k, v in (row.secrets or {}).items()},
    )
