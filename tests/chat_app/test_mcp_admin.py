"""An assistant's MCP servers: the admin form, secrets never shown back, and the turn's tools."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from sqlmodel import Session

from agent_core.testing import FunctionChatModel
from chat_app.db import repo
from chat_app.root import root
from chat_app.services import admin
from chat_app.services.admin import mcp_admin
from chat_app.services.conversation.threads import chats as threads
from chat_app.services.runtime import runtime
from chat_app.settings import Settings
from tests.agent_core.runtime_helpers import collect
from tests.chat_app.apps import started_with
from tests.chat_app.wire import drained

PASSWORD = "correct horse battery staple"
NOTES_SERVER = Path(__file__).parents[1] / "agent_core" / "mcp" / "notes_server.py"


@pytest.fixture
def settings(db_url: str) -> Settings:
    """Admin enabled: the app is started with a password."""
    return Settings(db_url=db_url, admin_password=PASSWORD)


@pytest.fixture
def grant(app) -> str:
    return admin.login(app, PASSWORD, client="203.0.113.7")


@pytest.fixture
def assistant_id(grant: str, app) -> str:
    return admin.create_assistant(app, grant, admin.AssistantForm(name="Tools")).id


def notes_form(**fields: str) -> mcp_admin.McpServerForm:
    return mcp_admin.McpServerForm(
        **{
            "name": "notes",
            "transport": "stdio",
            "target": f"'{sys.executable}' '{NOTES_SERVER}'",
            "secrets": "NOTES_SIGNATURE=s3cret-sig\n",
            **fields,
        }
    )


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"name": "my server"}, "Server name must be"),
        ({"name": ""}, "Server name must be"),
        ({"transport": "sse"}, "Transport must be stdio"),
        ({"target": "  "}, "Give the command"),
        ({"target": "python 'open"}, "The command has No closing quotation"),
        (
            {"transport": "http", "target": "ftp://example.org/mcp", "secrets": ""},
            "http:// or https://",
        ),
        (
            {"target": "https://mcp.example.org/mcp"},
            "That is a URL, not a command: choose “streamable HTTP”",
        ),
        ({"target": "HTTP://localhost:8000/mcp"}, "That is a URL, not a command"),
        (
            {
                "transport": "http",
                "target": "npx -y @modelcontextprotocol/server-everything",
                "secrets": "",
            },
            "That is not a URL: choose “stdio command”",
        ),
        ({"secrets": "NOTES SIGNATURE=x"}, "Secrets line 1 must be NAME=value"),
        ({"secrets": "\nTOKEN"}, "Secrets line 2 must be NAME=value"),
    ],
)
def test_a_bad_server_form_is_refused_with_what_to_fix(
    fields: dict[str, str], message: str
) -> None:
    with pytest.raises(admin.SettingsRejected, match=message):
        mcp_admin.parse_mcp_form(notes_form(**fields))


def test_a_url_server_takes_its_secrets_as_headers() -> None:
    server = mcp_admin.parse_mcp_form(
        mcp_admin.McpServerForm(
            name="docs",
            transport="http",
            target="https://mcp.example.org/mcp",
            secrets="Authorization=Bearer abc==",
        )
    )
    assert server.connection(call_timeout=5)["headers"] == {"Authorization": "Bearer abc=="}


def test_servers_are_listed_with_their_secrets_by_name_only(
    grant: str, assistant_id: str, app
) -> None:
    mcp_admin.add_mcp_server(app, grant, assistant_id, notes_form())

    (view,) = mcp_admin.list_mcp_servers(app, grant, assistant_id)

    assert view.name == "notes" and view.secret_names == ["NOTES_SIGNATURE"]
    assert "s3cret-sig" not in view.model_dump_json()
    history = admin.history(app, grant, assistant_id)
    assert history[0].field == "mcp_server" and "s3cret-sig" not in str(history[0].new)


def test_a_url_servers_credentials_are_not_shown_back(grant: str, assistant_id: str, app) -> None:
    mcp_admin.add_mcp_server(
        app,
        grant,
        assistant_id,
        mcp_admin.McpServerForm(
            name="docs",
            transport="http",
            target="https://mcp.example.org/mcp?api_key=k3y-in-url",
            secrets="Authorization=Bearer hdr-s3cret",
        ),
    )

    (view,) = mcp_admin.list_mcp_servers(app, grant, assistant_id)

    assert view.where == "https://mcp.example.org/mcp?api_key=[redacted]"
    assert view.secret_names == ["Authorization"]
    shown = view.model_dump_json() + str(admin.history(app, grant, assistant_id)[0].new)
    assert "k3y-in-url" not in shown and "hdr-s3cret" not in shown


def test_a_token_on_a_servers_command_line_is_not_shown_back(
    grant: str, assistant_id: str, app
) -> None:
    mcp_admin.add_mcp_server(
        app,
        grant,
        assistant_id,
        mcp_admin.McpServerForm(
            name="gh",
            transport="stdio",
            target="npx -y @modelcontextprotocol/server-github --token ghp_cmdS3cret0123456789",
        ),
    )

    (view,) = mcp_admin.list_mcp_servers(app, grant, assistant_id)

    assert view.where == "npx -y @modelcontextprotocol/server-github --token [redacted]"
    assert admin.history(app, grant, assistant_id)[0].new == (
        "gh: npx -y @modelcontextprotocol/server-github --token [redacted]"
    )


def test_a_history_row_stored_before_commands_were_redacted_is_shown_redacted(
    grant: str, assistant_id: str, app
) -> None:
    from chat_app.db.engine import write_engine
    from chat_app.db.models import AssistantChange
    from chat_app.db.models.types import utcnow

    with Session(write_engine(root().engine)) as db:
        db.add(
            AssistantChange(
                assistant_id=assistant_id,
                field="mcp_server",
                previous=None,
                new="gh: npx server-github --api-key=sk-old0123456789abcdef",
                changed_at=utcnow(),
            )
        )
        db.commit()
    shown = admin.history(app, grant, assistant_id)[0].new
    assert shown == "gh: npx server-github --api-key=[redacted]"


def test_a_name_is_used_once_per_assistant_and_removal_frees_it(
    grant: str, assistant_id: str, app
) -> None:
    mcp_admin.add_mcp_server(app, grant, assistant_id, notes_form())
    with pytest.raises(admin.SettingsRejected, match="already has a server called notes") as taken:
        mcp_admin.add_mcp_server(app, grant, assistant_id, notes_form())
    assert (taken.value.field, taken.value.code) == ("name", "name_taken")

    assert mcp_admin.remove_mcp_server(app, grant, assistant_id, "notes")
    assert mcp_admin.list_mcp_servers(app, grant, assistant_id) == []
    assert not mcp_admin.remove_mcp_server(app, grant, assistant_id, "notes")


def test_server_calls_need_the_admin_grant(assistant_id: str, app) -> None:
    for call in (
        lambda: mcp_admin.list_mcp_servers(app, "forged", assistant_id),
        lambda: mcp_admin.add_mcp_server(app, "forged", assistant_id, notes_form()),
        lambda: mcp_admin.remove_mcp_server(app, None, assistant_id, "notes"),
    ):
        with pytest.raises(admin.AdminRefused):
            call()


async def test_the_assistants_chats_call_the_servers_tools(
    grant: str, assistant_id: str, app
) -> None:
    mcp_admin.add_mcp_server(app, grant, assistant_id, notes_form())
    thread = threads.create_thread(app, "owner-1", "mcp", assistant_id=assistant_id)
    with Session(root().engine) as db:
        assistant = repo.get_assistant(session=db, assistant_id=assistant_id)

    def answer(messages: list[BaseMessage], **_: object) -> AIMessage:
        results = [m for m in messages if isinstance(m, ToolMessage)]
        if results:
            return AIMessage(content=results[-1].text)
        return AIMessage(
            content="", tool_calls=[{"name": "notes_shout", "args": {"text": "hi"}, "id": "call-1"}]
        )

    setup, _ = runtime.turn_setup(app, thread.id, assistant)
    setup.model = FunctionChatModel(fn=answer, calls=[])
    events = await collect(root().runner.submit(setup, "shout"))

    assert not [e for e in events if e["type"] in ("warning", "error")]
    rows = root().store.messages(root().store.sessions(thread.id)[-1].id)
    assert [(r.role, r.name, r.content) for r in rows if r.role == "tool"] == [
        ("tool", "notes_shout", "HI (signed s3cret-sig)")
    ]


async def test_a_large_mcp_tool_list_leaves_less_room_for_a_message(
    grant: str, assistant_id: str, app
) -> None:
    from agent_core.errors import MessageTooLarge
    from chat_app.services.conversation.runs import chat

    # The simulator's window as the app was started with it (BATON_SIM_WINDOW).
    app = started_with(app, sim_window=12000)
    thread = threads.create_thread(app, "owner-1", "paste", assistant_id=assistant_id)
    with pytest.raises(MessageTooLarge) as bare:
        await chat.check_fits(app, "owner-1", thread.id, "word " * 20_000)
    room = bare.value.room_tokens
    text = "word " * (room - 300)  # fits the assistant's own tools, with 300 tokens to spare
    await chat.check_fits(app, "owner-1", thread.id, text)

    mcp_admin.add_mcp_server(
        app,
        grant,
        assistant_id,
        notes_form(secrets="NOTES_EXTRA_TOOLS=40\nNOTES_SIGNATURE=s3cret-sig"),
    )
    with pytest.raises(MessageTooLarge) as crowded:
        await chat.check_fits(app, "owner-1", thread.id, text)
    # Forty tools of ~130 tokens each: the room shrinks by their schemas, counted for real.
    assert room - crowded.value.room_tokens > 4_000
    events = await drained(chat.send_message(app, "owner-1", thread.id, text, "c-1"))
    assert [e["type"] for e in events] == ["error"]
    assert events[0]["data"]["too_large"]["room_tokens"] == crowded.value.room_tokens
    assert root().store.pending(thread.id) == []
