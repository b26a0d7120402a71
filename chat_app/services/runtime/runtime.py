"""What a turn is built from (an assistant's model, window, policy, tools and sandbox, on the
app the composition root built)."""

from __future__ import annotations

import logging

from sqlmodel import select

from agent_core import (
    ConfigurationError,
    ContextPolicy,
    McpServer,
    ResolvedModel,
    Sandbox,
    TurnSetup,
    make_policy,
    make_tools,
    model_info,
    resolve_model,
)
from agent_core.accounting import get_encoding
from agent_core.history import make_history_tools
from agent_core.runtime import DEFAULT_SYSTEM_PROMPT
from agent_core.sandbox import limits_from_settings
from agent_core.tools import command_mode
from chat_app.db import mcp_servers as db_mcp
from chat_app.db.models import Assistant, AssistantCreate
from chat_app.db.repo import DEFAULT_ASSISTANT_NAME
from chat_app.services.runtime.backend import Backend
from chat_app.services.runtime.context_window import EffectiveWindow, effective_window
from chat_app.settings import Settings

_log = logging.getLogger(__name__)

__all__ = [
    "policy_for",
    "turn_setup",
    "window_for",
    "model_for",
    "load_tokenizers",
    "mcp_servers",
    "sandbox_for",
]


def load_tokenizers(app: Backend) -> list[str]:
    """Load the tokenizers the assistants' chats count with; their names, sorted.

    A tokenizer's tables are 35 MB (``cl100k_base``) to 80 MB (``o200k_base``) for the life of
    the process. Loaded by the first chat, they were built amid that chat's short-lived
    objects, whose freed blocks then stayed pinned in the allocator's arenas beside them, and
    the chat waited for them. Called before the first request (the app's lifespan); an
    assistant added later with another model loads its tokenizer at its first chat.
    """
    with app.read() as db:
        specs = list(db.exec(select(Assistant.model)).all())
    if not specs:  # the default assistant is made with the first chat
        specs = [AssistantCreate(name=DEFAULT_ASSISTANT_NAME).model]
    names = set()
    for spec in specs:
        try:
            names.add(model_info((spec or "").strip() or "simulator").encoding)
        except ConfigurationError:
            continue  # a bad model name is refused where the assistant is used
    for name in names:
        get_encoding(name)
    return sorted(names)


def model_for(app: Backend, assistant: Assistant) -> ResolvedModel:
    """The assistant's model, on the provider settings the process was started with."""
    return resolve_model(
        assistant.model,
        settings=app.settings.providers,
        window_override=assistant.window_override,
    )


def window_for(app: Backend, assistant: Assistant, resolved: ResolvedModel) -> EffectiveWindow:
    """The window the assistant's chats run on (the admin page shows the same)."""
    return effective_window(
        resolved.name,
        is_simulator=resolved.is_simulator,
        window_override=assistant.window_override,
        simulator_window=app.settings.sim_window,
    )


def policy_for(app: Backend, assistant: Assistant) -> tuple[ContextPolicy, ResolvedModel]:
    """The assistant's context policy and model: what a chat's reset status needs, without
    the tools a run builds."""
    resolved = model_for(app, assistant)
    policy = make_policy(
        context_strategy=assistant.context_strategy,
        reset_threshold=assistant.reset_threshold,
        compact_threshold=assistant.compact_threshold,
        mask_threshold=assistant.mask_threshold,
        warn_threshold=assistant.warn_threshold,
        keep_recent_tokens=assistant.keep_recent_tokens,
        window_override=window_for(app, assistant, resolved).override,
        pinned_paths=tuple(assistant.pinned_paths or ()),
    )
    return policy, resolved


def turn_setup(
    app: Backend, thread_id: str, assistant: Assistant
) -> tuple[TurnSetup, ResolvedModel]:
    """Everything a run of ``thread_id`` needs, from the assistant's current settings."""
    policy, resolved = policy_for(app, assistant)
    the_store = app.store
    setup = TurnSetup(
        store=the_store,
        thread_id=thread_id,
        model=resolved.model,
        model_name=resolved.name,
        policy=policy,
        system_prompt=assistant.system_prompt or DEFAULT_SYSTEM_PROMPT,
        tools=make_tools(
            the_store,
            thread_id,
            commands=command_mode(
                resolved.is_simulator, commands_enabled=app.settings.sandbox_enabled
            ),
            sandbox=sandbox_for(app.settings, assistant),
        )
        # Offered from the first message, not only once something was compacted: a tool list
        # that changes mid-thread would break the provider's cached prompt prefix.
        + (make_history_tools(the_store, thread_id) if assistant.history_tools else []),
        review_handoffs=bool(assistant.review_handoffs),
    )
    servers = mcp_servers(app, assistant.id)
    if servers:
        # Loaded by the runner at the start of each turn (async, with a time limit per server).
        setup.tool_loader = lambda: app.toolbox.load(servers)
    return setup, resolved


def mcp_servers(app: Backend, assistant_id: str) -> list[McpServer]:
    """The assistant's MCP servers, read at every turn so an admin's change applies next turn."""
    with app.read() as db:
        return [
            db_mcp.as_server(row)
            for row in db_mcp.list_mcp_servers(session=db, assistant_id=assistant_id)
        ]


def sandbox_for(settings: Settings, assistant: Assistant) -> Sandbox:
    """The sandbox the assistant's commands run in."""
    # The assistant's "Network for commands" (or BATON_SANDBOX_NETWORK=on, for every
    # assistant) lets commands reach the network (package installs); off by default so a
    # command the model writes cannot send the workspace anywhere.
    network = bool(assistant.sandbox_network) or settings.sandbox_network
    limits, _ = limits_from_settings(settings.sandbox_limits)  # build_app warned of problems
    return Sandbox(limits, network=network)
