"""Everything one run of a thread needs: store, model, policy, tools and the event sink."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool

from agent_core.events import Event
from agent_core.policy import ContextPolicy
from agent_core.storage._ports import SessionStore

if TYPE_CHECKING:
    from agent_core.tools._mcp import ToolLoad

__all__ = ["TurnSetup", "EventSink"]

EventSink = Callable[[Event], None]


@dataclass
class TurnSetup:
    """The configuration of one run. ``handoff_model`` defaults to ``model``.

    ``tool_loader``, when given, is awaited at the start of each turn for more tools (an
    assistant's MCP servers); its problems reach the chat as ``warning`` events.
    """

    store: SessionStore
    thread_id: str
    model: BaseChatModel
    model_name: str
    policy: ContextPolicy
    system_prompt: str = ""
    tools: Sequence[BaseTool] = ()
    handoff_model: BaseChatModel | None = None
    handoff_budget_tokens: int = 1500
    compaction_summary_tokens: int = 800
    tool_loader: Callable[[], Awaitable[ToolLoad]] | None = None
    # After a reset, the new session waits until the user confirms or discards its handoff.
    review_handoffs: bool = False
