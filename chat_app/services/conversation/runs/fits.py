"""Whether a message may be sent to a chat: it is clean text, and it fits a fresh session of
the chat's model (the room left by the instructions, the tools offered and a handoff); a
refusal says why, in the words the page shows."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from langchain_core.tools import BaseTool

from agent_core import (
    ConfigurationError,
    MessageRejected,
    MessageTooLarge,
    TokenCounter,
    TurnSetup,
    model_info,
    validate_user_message,
)
from agent_core.tools import ToolLoad
from chat_app.services.conversation.runs.thread_runs import assistant_for
from chat_app.services.presentation.ui_events import Refused, TooLarge
from chat_app.services.runtime import context_window, runtime
from chat_app.services.runtime.backend import Backend

__all__ = ["validate_message", "check_fits", "with_offered_tools", "fits_or_raise", "refusal"]


def validate_message(text: str) -> str:
    """The cleaned text, or :class:`MessageRejected` with a message for the user."""
    return validate_user_message(text)


@lru_cache(maxsize=16)
def _counter(model_name: str) -> TokenCounter:
    return TokenCounter(model_name)


async def check_fits(app: Backend, owner: str, thread_id: str, text: str) -> None:
    """Refuse (:class:`MessageTooLarge`) a message too large for a fresh session of the chat's
    model: it would fill the context on its own, reset after reset, and never be answered.

    The room is the reset threshold of the model's window, less the system prompt, the
    definitions of every tool offered (the assistant's MCP servers' too) and the handoff a new
    session starts from.
    """
    thread, assistant = await asyncio.to_thread(assistant_for, app, owner, thread_id)
    if thread is None or assistant is None:
        return
    try:
        setup, _ = await asyncio.to_thread(runtime.turn_setup, app, thread_id, assistant)
    except ConfigurationError:
        return  # the chat's banner says why; the message is kept as queued
    setup, offered = await with_offered_tools(setup)
    fits_or_raise(setup, text, offered)


async def with_offered_tools(setup: TurnSetup) -> tuple[TurnSetup, list[BaseTool]]:
    """The tools ``setup``'s MCP servers offer, loaded now so that the size check counts the
    tool definitions the model will be sent, and ``setup`` made to reuse that load (the turn's
    first call of the loader answers with it). A failing server is the turn's to report."""
    loader = setup.tool_loader
    if loader is None:
        return setup, []
    try:
        load = await loader()
    except Exception:  # the runner loads again and says why in the chat
        return setup, []
    taken = {tool.name for tool in setup.tools}
    offered = [tool for tool in load.tools if tool.name not in taken]
    first = [load]

    async def reuse() -> ToolLoad:
        return first.pop() if first else await loader()

    return dataclasses.replace(setup, tool_loader=reuse), offered


def fits_or_raise(setup: TurnSetup, text: str, extra_tools: Sequence[BaseTool] = ()) -> None:
    """:class:`MessageTooLarge` when ``text`` leaves no room in a fresh session of ``setup``."""
    policy = setup.policy
    window = model_info(setup.model_name, window_override=policy.window_override).context_window
    counter = _counter(setup.model_name)
    # As /admin counts it, plus the MCP servers' tools the turn will offer.
    fixed = context_window.fixed_context_tokens(setup, counter, extra_tools=extra_tools)
    room = int(window * policy.reset_threshold) - fixed
    tokens = counter.count_text(text)
    if tokens > room:
        raise MessageTooLarge(
            f"This message is about {tokens:,} tokens, more than this assistant's model can take "
            f"in one session: {window:,} tokens of context, a reset at "
            f"{policy.reset_threshold:.0%}, and about {fixed:,} taken by the instructions, the "
            f"tools and a handoff leave room for {max(room, 0):,}. Shorten it or send it in parts.",
            size_bytes=len(text.encode("utf-8")),
            tokens=tokens,
            room_tokens=max(room, 0),
        )


def refusal(
    message: str, client_id: str | None, rejected: MessageRejected | None = None
) -> Refused:
    """The page's refusal of the message ``client_id`` (a too-large one offers a file)."""
    said: dict[str, Any] = {"client_id": client_id} if client_id else {}
    if isinstance(rejected, MessageTooLarge):
        # The chat offers to attach the text as a file instead (it stays in the composer).
        said["too_large"] = TooLarge(
            size_bytes=rejected.size_bytes,
            tokens=rejected.tokens,
            room_tokens=rejected.room_tokens,
        )
    return Refused(message=message, **said)
