"""An assistant's MCP servers: where each is (a command or a URL) and its secrets."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import String, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from chat_app.db.models.types import JSONValue, UTCDateTime, new_id, utcnow

__all__ = ["AssistantMcpServer"]


class AssistantMcpServer(SQLModel, table=True):
    """One MCP server whose tools join the agent's in the assistant's chats.

    ``secrets`` (environment variables for a command, HTTP headers for a URL) are read only
    by the runtime; the admin page shows their names, never their values.
    """

    __tablename__ = "assistant_mcp_server"
    __table_args__ = (
        UniqueConstraint("assistant_id", "name", name="uq_assistant_mcp_server_assistant_name"),
    )

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    assistant_id: str = Field(
        foreign_key="assistant.id", ondelete="CASCADE", index=True, max_length=32
    )
    name: str = Field(max_length=32)
    transport: str = Field(sa_type=String(8))
    command: str = Field(default="", sa_type=Text)
    args: list[str] = Field(default_factory=list, sa_type=JSONValue)
    url: str = Field(default="", sa_type=Text)
    secrets: dict[str, Any] = Field(default_factory=dict, sa_type=JSONValue)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
