"""The agent graph of one run: langchain v1 ``create_agent`` with Baton's middleware."""

from __future__ import annotations

from contextvars import Context
from typing import Any

import langsmith
from langchain.agents import create_agent
from langsmith.utils import tracing_is_enabled

from agent_core.runtime._coordinator import SessionCoordinator
from agent_core.runtime._middleware import build_middleware

__all__ = ["build_agent", "DEFAULT_SYSTEM_PROMPT"]

DEFAULT_SYSTEM_PROMPT = (
    "You are a careful software agent working in a project workspace. Plan your work with "
    "write_todos (one todo in progress at a time), use the file tools to read and change files, "
    "run commands with run_command, and report what you did when the todos are done."
)


async def _in_place_unless_tracing(
    default: Any, ctx: Context, func: Any, /, *args: Any, **kwargs: Any
) -> Any:
    """LangChain wraps every middleware's ``wrap_model_call`` and ``wrap_tool_call`` in a
    LangSmith span whose set-up and end run in a thread (and the hook in a task of its own)
    even when nothing is traced: three trips through the event loop for each model call and
    each tool call of every turn, each waiting its turn there under load. Untraced, the span
    does no I/O, so it runs in place; traced (LangSmith's environment), as LangSmith does."""
    if tracing_is_enabled():
        return await default(ctx, func, *args, **kwargs)
    return ctx.run(func, *args, **kwargs)


langsmith.set_runtime_overrides(aio_to_thread=_in_place_unless_tracing)


def build_agent(coordinator: SessionCoordinator) -> Any:
    """A compiled agent graph whose middleware applies ``coordinator``'s decisions."""
    setup = coordinator.setup
    return create_agent(
        setup.model,
        tools=list(setup.tools),
        system_prompt=setup.system_prompt or None,
        middleware=build_middleware(coordinator),
    )
