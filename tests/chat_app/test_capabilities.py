"""The chat says when its assistant cannot run commands on this host."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from chat_app.db import repo
from chat_app.db.engine import write_engine
from chat_app.root import root
from chat_app.services import admin
from chat_app.services.admin import capabilities
from chat_app.services.conversation.threads import chats as thread_service
from chat_app.settings import Settings

OWNER = "owner-1"


@pytest.fixture
def settings(db_url: str) -> Settings:
    # A local Ollama configured: its models are real ones (nothing is asked of it here).
    return Settings(
        db_url=db_url, provider_credentials={"OLLAMA_BASE_URL": "http://127.0.0.1:11434"}
    )


def _chat_with(app, model: str) -> str:
    data = admin.validate_form(admin.AssistantForm(name=model, model=model))
    with Session(write_engine(root().engine)) as db:
        assistant_id = repo.create_assistant(session=db, data=data).id
    return thread_service.create_thread(app, OWNER, "Chat", assistant_id=assistant_id).id


def test_a_real_model_on_a_host_that_cannot_sandbox_says_commands_are_off(
    monkeypatch: pytest.MonkeyPatch,
    app,
) -> None:
    monkeypatch.setattr(
        capabilities, "sandbox_unavailable_reason", lambda enabled: "bubblewrap is not installed"
    )
    real = _chat_with(app, "ollama:llama3.1")
    note = capabilities.commands_note(app, OWNER, real)
    assert note.startswith("This assistant cannot run commands here: bubblewrap is not installed.")
    # Only its owner learns anything about the chat.
    assert capabilities.commands_note(app, "someone-else", real) == ""
    # The simulator's commands are scripted, so nothing is missing there.
    assert capabilities.commands_note(app, OWNER, _chat_with(app, "simulator")) == ""


def test_a_host_that_can_sandbox_needs_no_note(monkeypatch: pytest.MonkeyPatch, app) -> None:
    monkeypatch.setattr(capabilities, "sandbox_unavailable_reason", lambda enabled: None)
    assert capabilities.commands_note(app, OWNER, _chat_with(app, "ollama:llama3.1")) == ""
