"""Assistants' MCP servers in the database, on SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from chat_app.db import mcp_servers as db_mcp
from chat_app.db import repo
from chat_app.db.engine import get_engine, read_session, write_session
from chat_app.db.models import AssistantCreate, AssistantMcpServer
from tests.chat_app.db.backends import migrated_sqlite, pg_url  # noqa: F401


@pytest.fixture(params=["sqlite", "postgres"])
def engine(request: pytest.FixtureRequest, tmp_path: Path):  # type: ignore[no-untyped-def]
    if request.param == "sqlite":
        return get_engine(migrated_sqlite(tmp_path))
    return get_engine(request.getfixturevalue("pg_url"))


def _server(assistant_id: str, name: str = "docs") -> AssistantMcpServer:
    return AssistantMcpServer(
        assistant_id=assistant_id,
        name=name,
        transport="stdio",
        command="docs-server",
        args=["--root", "/srv/docs"],
        secrets={"DOCS_TOKEN": "t0ken"},
    )


def test_servers_are_kept_per_assistant_with_their_secrets_out_of_the_history(engine) -> None:
    with write_session(engine) as db:
        first = repo.create_assistant(session=db, data=AssistantCreate(name="A")).id
        second = repo.create_assistant(session=db, data=AssistantCreate(name="B")).id
    with write_session(engine) as db:
        assert db_mcp.add_mcp_server(session=db, server=_server(first))
    with write_session(engine) as db:
        assert not db_mcp.add_mcp_server(session=db, server=_server(first))  # name taken
    with write_session(engine) as db:
        assert db_mcp.add_mcp_server(session=db, server=_server(second))  # another assistant

    with read_session(engine) as db:
        (row,) = db_mcp.list_mcp_servers(session=db, assistant_id=first)
        server = db_mcp.as_server(row)
        history = repo.list_assistant_changes(session=db, assistant_id=first)
    assert (server.command, server.args, server.secrets) == (
        "docs-server",
        ("--root", "/srv/docs"),
        {"DOCS_TOKEN": "t0ken"},
    )
    assert [(c.field, c.new) for c in history] == [
        ("mcp_server", "docs: docs-server --root /srv/docs")
    ]

    with write_session(engine) as db:
        assert db_mcp.remove_mcp_server(session=db, assistant_id=first, name="docs")
    with read_session(engine) as db:
        assert db_mcp.list_mcp_servers(session=db, assistant_id=first) == []
        assert len(db_mcp.list_mcp_servers(session=db, assistant_id=second)) == 1
