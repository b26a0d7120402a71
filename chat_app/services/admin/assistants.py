"""The assistants on the `/admin` page: list, create, update, delete, and their history.

Saved settings apply from the next turn of every thread on the assistant, because the
runtime reads the assistant at the start of each turn. Each changed value is recorded with
its time and previous value (:func:`history`). Every call needs a grant
(:func:`chat_app.services.admin.auth.require_grant`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict

from agent_core import ConfigurationError
from agent_core.redaction import redact_argv
from chat_app.db import repo
from chat_app.db.models import Assistant, AssistantCreate, AssistantUpdate
from chat_app.errors import Refused
from chat_app.services.admin.auth import require_grant
from chat_app.services.admin.forms import (
    AssistantForm,
    SettingsRejected,
    model_facts,
    resolved_strategy,
    validate_form,
)
from chat_app.services.runtime import runtime
from chat_app.services.runtime.backend import Backend
from chat_app.services.runtime.context_window import settings_problem

__all__ = [
    "AssistantInUse",
    "AssistantView",
    "ChangeView",
    "list_assistants",
    "get_assistant",
    "create_assistant",
    "update_assistant",
    "history",
    "delete_assistant",
    "chats_on",
]


class AssistantInUse(Refused):
    """The assistant cannot be deleted (the last one, or no other to move its chats to)."""

    default_code = "assistant_in_use"


class AssistantView(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    model: str
    system_prompt: str
    context_strategy: str
    effective_strategy: str
    compact_threshold: float
    mask_threshold: float | None
    reset_threshold: float
    keep_recent_tokens: int
    window_override: int | None
    pinned_paths: list[str]
    history_tools: bool
    warn_threshold: float | None = None
    review_handoffs: bool = False
    sandbox_network: bool
    updated_at: datetime
    model_window: int = 0
    """The model table's window (what an empty override means without an environment
    setting)."""
    window: int = 0
    """The window the assistant's chats run on: the same function decides it for both."""
    window_note: str = ""
    """That window and where it comes from: model table, override or environment."""
    model_note: str = ""
    """What the admin should know about the model: its window, whether Baton knows it, and
    whether its provider is configured (otherwise the offline simulator answers)."""


class ChangeView(BaseModel):
    model_config = ConfigDict(extra="forbid")

    field: str
    previous: Any = None
    new: Any = None
    changed_at: datetime


def _effective_window(app: Backend, assistant: Assistant) -> tuple[int, str]:
    try:
        window = runtime.window_for(app, assistant, runtime.model_for(app, assistant))
    except ConfigurationError as exc:
        return 0, f"Chats on this assistant cannot run: {exc}"
    return window.tokens, window.describe()


def _check_runnable(app: Backend, data: AssistantCreate) -> None:
    """Refuse settings the chats could not work with, on the window they would run on."""
    assistant = Assistant(**data.model_dump())
    try:
        setup, resolved = runtime.turn_setup(app, "", assistant)
        problem = settings_problem(setup, runtime.window_for(app, assistant, resolved))
    except ConfigurationError as exc:
        raise SettingsRejected(str(exc), field="model", code="model_unusable") from None
    if problem:
        raise SettingsRejected(problem.message, field=problem.field, code="not_runnable")


def _view(app: Backend, assistant: Assistant) -> AssistantView:
    # getattr, not model_dump: it refreshes attributes expired by the commit.
    derived = ("effective_strategy", "model_window", "model_note", "window", "window_note")
    data = {
        name: getattr(assistant, name) for name in AssistantView.model_fields if name not in derived
    }
    data["pinned_paths"] = list(assistant.pinned_paths or [])
    model_window, note = model_facts(app.settings, assistant.model)
    window, window_note = _effective_window(app, assistant)
    return AssistantView(
        **data,
        effective_strategy=resolved_strategy(assistant.model, assistant.context_strategy),
        model_window=model_window,
        model_note=note,
        window=window,
        window_note=window_note,
    )


def list_assistants(app: Backend, grant: str | None) -> list[AssistantView]:
    require_grant(app, grant)
    with app.write() as db:
        if not repo.list_assistants(session=db):
            repo.ensure_default_assistant(session=db)
        return [_view(app, a) for a in repo.list_assistants(session=db)]


def get_assistant(app: Backend, grant: str | None, assistant_id: str) -> AssistantView | None:
    require_grant(app, grant)
    with app.read() as db:
        assistant = repo.get_assistant(session=db, assistant_id=assistant_id)
        return _view(app, assistant) if assistant else None


def create_assistant(app: Backend, grant: str | None, form: AssistantForm) -> AssistantView:
    require_grant(app, grant)
    data = validate_form(form)
    _check_runnable(app, data)
    with app.write() as db:
        return _view(app, repo.create_assistant(session=db, data=data))


def update_assistant(
    app: Backend, grant: str | None, assistant_id: str, form: AssistantForm
) -> AssistantView | None:
    """Save the form over the assistant; recorded per changed field. None if it is gone."""
    require_grant(app, grant)
    data = validate_form(form)
    _check_runnable(app, data)
    changes = AssistantUpdate(**data.model_dump())
    with app.write() as db:
        assistant = repo.update_assistant(session=db, assistant_id=assistant_id, changes=changes)
        return _view(app, assistant) if assistant else None


def history(app: Backend, grant: str | None, assistant_id: str) -> list[ChangeView]:
    """The assistant's changes, newest first."""
    require_grant(app, grant)
    with app.read() as db:
        return [
            ChangeView(
                field=c.field,
                previous=_shown_change(c.field, c.previous),
                new=_shown_change(c.field, c.new),
                changed_at=c.changed_at,
            )
            for c in repo.list_assistant_changes(session=db, assistant_id=assistant_id)
        ]


def _shown_change(field: str, value: str | None) -> str | None:
    """An MCP server's change as shown: a secret on its command line redacted, also in rows
    written before commands were redacted when stored."""
    if field != "mcp_server" or not value:
        return value
    return " ".join(redact_argv(value.split(" ")))


def delete_assistant(app: Backend, grant: str | None, assistant_id: str, move_to: str) -> int:
    """Delete the assistant; its chats (every owner's) move to ``move_to``. Returns how many
    moved. Raises :class:`AssistantInUse` for the last assistant or a missing target."""
    require_grant(app, grant)
    with app.write() as db:
        others = [a.id for a in repo.list_assistants(session=db) if a.id != assistant_id]
        if not others:
            raise AssistantInUse(
                "The last assistant cannot be deleted: chats need one.", code="last_assistant"
            )
        if move_to not in others:
            raise AssistantInUse(
                "Choose another assistant for this one's chats.", field="move_to", code="no_target"
            )
        moved = repo.delete_assistant(session=db, assistant_id=assistant_id, move_to=move_to)
    if moved is None:
        raise AssistantInUse("That assistant no longer exists.", code="assistant_gone")
    return moved


def chats_on(app: Backend, grant: str | None, assistant_id: str) -> int:
    """How many chats (of every owner) run on the assistant."""
    require_grant(app, grant)
    with app.read() as db:
        return repo.count_threads(session=db, assistant_id=assistant_id)
