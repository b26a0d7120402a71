"""The agent graph of one run: langchain v1 ``create_agent`` with Baton's middleware."""

from __future__ import annotations

from typing import Any

from langchain.agents import create_agent

from agent_core.coordinator import SessionCoordinator
from agent_core.middleware import build_middleware

__all__ = ["build_agent", "DEFAULT_SYSTEM_PROMPT"]

DEFAULT_SYSTEM_PROMPT = (
    "You are a careful software agent working in a project workspace. Plan your work with "
    "write_todos (one todo in progress at a time), use the file tools to read and change files, "
    "run commands with run_command, and report what you did when the todos are done."
)


def build_agent(coordinator: SessionCoordinator) -> Any:
    """A compiled agent graph whose middleware applies ``coordinator``'s decisions."""
    setup = coordinator.setup
    return create_agent(
        setup.model,
        tools=list(setup.tools),
        system_prompt=setup.system_prompt or None,
        middleware=build_middleware(coordinator),
    )
