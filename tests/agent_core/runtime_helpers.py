"""Building blocks for runtime tests: a thread on the in-memory store with the simulator."""

from __future__ import annotations

from typing import Any

from agent_core.policy import make_policy
from agent_core.providers._simulator import SimulatorChatModel
from agent_core.runtime._runner import ThreadRunner
from agent_core.runtime._turn import TurnSetup
from agent_core.storage._memory_store import InMemoryStore
from agent_core.tools._builtin import make_tools


def make_setup(
    store: InMemoryStore | None = None,
    *,
    thread_id: str = "t1",
    window: int = 2500,
    model=None,
    model_name: str = "simulator",
    handoff_model=None,
    **policy: Any,
) -> TurnSetup:
    store = store or InMemoryStore()
    return TurnSetup(
        store=store,
        thread_id=thread_id,
        model=model or SimulatorChatModel(),
        model_name=model_name,
        policy=make_policy(window_override=window, **policy),
        system_prompt="You are a test agent.",
        tools=make_tools(store, thread_id),
        handoff_model=handoff_model,
    )


async def collect(stream) -> list[dict[str, Any]]:
    """The stream's events in their wire shape (``{"type": ..., "data": {...}}``): what the
    UI and the store get, which the typed events must keep."""
    return [event.model_dump() async for event in stream]


def of_type(
    events: list[dict[str, Any]], kind: str, phase: str | None = None
) -> list[dict[str, Any]]:
    return [
        e
        for e in events
        if e["type"] == kind and (phase is None or e["data"].get("event") == phase)
    ]


async def run(
    setup: TurnSetup, text: str, runner: ThreadRunner | None = None
) -> list[dict[str, Any]]:
    return await collect((runner or ThreadRunner()).submit(setup, text))
