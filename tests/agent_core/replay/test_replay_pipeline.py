"""Replay and the app make the same context decisions over the same messages.

A live run drives the real middleware (the agent loop, the in-memory store, the real tools)
with a scripted model through five requests that mask, compact and reset in a 6,000-token
window; the stored messages are then replayed with the assistant's policy, system prompt and
tools. Both must mask, compact and reset at the same points, in the same order.
"""

from __future__ import annotations

import asyncio

from langchain_core.messages import AIMessage, SystemMessage

from agent_core.context._build import to_langchain
from agent_core.context._compaction import COMPACTION_PROMPT
from agent_core.policy import make_policy
from agent_core.replay import ReplaySummary
from agent_core.replay._run import replay_transcript
from agent_core.runtime._coordinator import CARRIED_OVER
from agent_core.runtime._runner import ThreadRunner
from agent_core.runtime._turn import TurnSetup
from agent_core.storage._memory_store import InMemoryStore
from agent_core.testing import FunctionChatModel
from agent_core.tools._builtin import make_tools
from agent_core.transcripts import Transcript
from tests.agent_core.runtime_helpers import collect

MODEL = "anthropic:claude-opus-4-1"  # compact family: auto masks, compacts, then resets
REQUESTS = [
    "Build a CSV parser for invoices",
    "Now handle quoted fields",
    "Add dates",
    "And currencies",
    "And totals",
]
STEPS = 6  # file reads per request, each after a paragraph of reasoning
# (request, step) whose reasoning is long: the recent part a compaction keeps is then too
# large to get below the reset threshold, so auto resets instead.
LONG = {(2, 3), (4, 4)}
# The answer to request 1 is long: the context is full when request 2 arrives, and the
# reset hands that request over to the new session.
LONG_ANSWER = 1
_MARKERS = {"masking": "mask", "compaction": "compaction"}


def _agent() -> FunctionChatModel:
    script: list[AIMessage] = []
    for request in range(len(REQUESTS)):
        for step in range(STEPS):
            n = len(script)
            words = 40 * (25 if (request, step) in LONG else 1)
            script.append(
                AIMessage(
                    content=f"Step {n}: " + "reading the module to see how it parses rows " * words,
                    tool_calls=[
                        {
                            "name": "read_file",
                            "args": {"path": f"src/mod{n % 9}.py"},
                            "id": f"call{n}",
                        }
                    ],
                )
            )
        summary = "Here is what changed in the parser and why. " * 300
        script.append(
            AIMessage(
                content=f"Done with request {request}. "
                + (summary if request == LONG_ANSWER else "")
            )
        )

    def answer(messages, **_):
        if isinstance(messages[0], SystemMessage) and messages[0].content == COMPACTION_PROMPT:
            return AIMessage(content="")  # no model summary: the facts summary, as in a replay
        return script.pop(0)

    return FunctionChatModel(fn=answer, calls=[])


def _no_handoff_model(messages, **_):
    raise RuntimeError("handoffs are facts-only here, as in a replay")


def _live_decisions(store: InMemoryStore) -> tuple[list[tuple[str, int]], list, int]:
    """What the live run did, read back from the store: each mask and compaction marker and
    each new session, at the number of conversation messages before it; the conversation
    itself (a carried-over message once); and how many messages a reset carried over."""
    decisions, conversation, carried = [], [], 0
    for session in store.sessions("t1"):
        if session.number > 1:
            decisions.append(("reset", len(conversation)))
        for row in store.messages(session.id):
            if row.role == "event" and row.meta.get("event") in _MARKERS:
                decisions.append((_MARKERS[row.meta["event"]], len(conversation)))
            elif row.role in ("user", "assistant", "tool"):
                if CARRIED_OVER in row.meta:
                    carried += 1
                else:
                    conversation.append(row)
    return decisions, conversation, carried


async def test_replay_and_a_live_run_make_the_same_mask_compact_reset_decisions() -> None:
    store = InMemoryStore()
    for n in range(9):
        store.write_file(
            "t1",
            f"src/mod{n}.py",
            "\n".join(f"def parse_{n}_{i}(row): return row.split(',')[{i}]" for i in range(40)),
        )
    setup = TurnSetup(
        store=store,
        thread_id="t1",
        model=_agent(),
        model_name=MODEL,
        policy=make_policy(window_override=6000, keep_recent_tokens=600),
        system_prompt="You are a careful coding agent.",
        tools=make_tools(store, "t1"),
        handoff_model=FunctionChatModel(fn=_no_handoff_model, calls=[]),
    )
    runner = ThreadRunner()
    for request in REQUESTS:
        await collect(runner.submit(setup, request))

    live, conversation, carried = _live_decisions(store)
    transcript = Transcript(format="openai", messages=to_langchain(conversation))
    # A replay is synchronous (the app runs it in a worker thread).
    events = await asyncio.to_thread(
        lambda: list(
            replay_transcript(
                transcript,
                model=MODEL,
                policy=setup.policy,
                system_prompt=setup.system_prompt,
                tools=setup.tools,
            )
        )
    )
    replayed = [(e.event, e.message_index + 1) for e in events if not isinstance(e, ReplaySummary)]

    # The fixture reaches every kind of decision, and a reset that carries a request over.
    assert {kind for kind, _ in live} == {"mask", "compaction", "reset"}
    assert sum(kind == "reset" for kind, _ in live) >= 3 and carried >= 1
    assert replayed == live
    summary = events[-1]
    assert isinstance(summary, ReplaySummary)
    assert (summary.masks, summary.compactions, summary.resets) == tuple(
        sum(kind == k for kind, _ in live) for k in ("mask", "compaction", "reset")
    )
