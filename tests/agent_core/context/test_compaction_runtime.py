"""Compaction, todo-scoped compression, middleware composition, overflow and stop."""

from __future__ import annotations

import asyncio

from langchain_core.messages import AIMessage

from agent_core.accounting._calibration import ContextEstimator
from agent_core.context._build import apply_edits, build_context, context_kind
from agent_core.errors import ContextOverflowError
from agent_core.events import TokenEvent
from agent_core.providers._simulator import SimulatorChatModel
from agent_core.runtime._coordinator import SessionCoordinator
from agent_core.runtime._middleware import build_middleware
from agent_core.runtime._runner import ThreadRunner
from agent_core.storage._memory_store import InMemoryStore
from agent_core.storage._records import ContextEdit, NewMessage
from agent_core.testing import FunctionChatModel
from tests.agent_core.runtime_helpers import collect, make_setup, of_type, run

TASK = "Build a CSV parser for invoices"
OPUS = "anthropic:claude-opus-4-1"


def _stack(setup) -> list[str]:
    coordinator = SessionCoordinator(
        setup, estimator=ContextEstimator(setup.model_name), emit=lambda e: None
    )
    return [type(m).__name__ for m in build_middleware(coordinator)]


def test_middleware_order_and_coexistence_per_strategy() -> None:
    assert _stack(make_setup(context_strategy="reset")) == [
        "ContextResetMiddleware",
        "TodoCompressionMiddleware",
        "ToolErrorMiddleware",
    ]
    assert _stack(make_setup(context_strategy="compact")) == [
        "ContextResetMiddleware",
        "CompactionMiddleware",
        "TodoCompressionMiddleware",
        "ToolErrorMiddleware",
    ]
    assert _stack(make_setup(model_name=OPUS)) == [
        "ContextResetMiddleware",
        "CompactionMiddleware",
        "TodoCompressionMiddleware",
        "ToolErrorMiddleware",
    ]
    assert _stack(make_setup(model_name="anthropic:claude-sonnet-4-5")) == [
        "ContextResetMiddleware",
        "TodoCompressionMiddleware",
        "ToolErrorMiddleware",
    ]


async def test_opus_class_compacts_in_place_and_keeps_the_originals() -> None:
    store = InMemoryStore()
    setup = make_setup(store, model_name=OPUS, window=6000, keep_recent_tokens=600)
    events = await run(setup, TASK)
    assert of_type(events, "compaction")
    assert not of_type(events, "context_reset")
    session = store.current_session("t1")
    rows = store.messages(session.id)
    assert [r.content for r in rows if r.role == "user"] == [TASK]  # originals stay
    assert sum(1 for r in rows if r.role == "event" and r.meta.get("event") == "compaction") == len(
        of_type(events, "compaction")
    )
    context = build_context(store, session)
    assert any(context_kind(m) == "summary" for m in context)
    assert len(context) < len([r for r in rows if r.role != "event"])


async def test_compact_only_never_resets_even_when_full() -> None:
    setup = make_setup(window=1500, context_strategy="compact", keep_recent_tokens=5000)
    events = await run(setup, TASK)
    assert not of_type(events, "context_reset")
    assert len(setup.store.sessions("t1")) == 1


async def test_auto_resets_when_compaction_cannot_get_below_the_reset_threshold() -> None:
    # keep_recent_tokens larger than the window: compaction could never shrink enough
    setup = make_setup(model_name=OPUS, window=2500, keep_recent_tokens=10_000)
    events = await run(setup, TASK)
    assert of_type(events, "context_reset", "reset_complete")
    assert not of_type(events, "compaction")


def _short_compaction_setup(**policy):
    # Keeping 2,000 recent tokens on a 6,000 window cannot get below 40%: each compaction
    # leaves the context at about 42%.
    return make_setup(window=6000, compact_threshold=0.4, keep_recent_tokens=2000, **policy)


async def test_compact_does_not_repeat_a_compaction_that_fell_short_and_warns_once() -> None:
    setup = _short_compaction_setup(context_strategy="compact")
    events = await run(setup, TASK)
    assert len(of_type(events, "compaction")) == 1
    warnings = [
        e for e in of_type(events, "warning") if "compact threshold" in e["data"]["message"]
    ]
    assert len(warnings) == 1
    assert not of_type(events, "context_reset")


async def test_auto_resets_after_a_compaction_that_fell_short() -> None:
    setup = _short_compaction_setup(model_name=OPUS)
    events = await run(setup, TASK)
    kinds = [
        e["type"]
        for e in events
        if e["type"] == "compaction"
        or (e["type"] == "context_reset" and e["data"]["event"] == "reset_complete")
    ]
    assert kinds[:2] == ["compaction", "context_reset"]


async def test_at_most_one_reset_or_compaction_per_model_call() -> None:
    setup = make_setup(model_name=OPUS, window=2500, keep_recent_tokens=400)
    events = await run(setup, TASK)
    actions_since_call = 0
    for event in events:
        # a model reply (steps with tool calls only stream no token) ends one model call
        if event["type"] == "message" and event["data"]["role"] == "assistant":
            actions_since_call = 0
        elif event["type"] == "compaction" or (
            event["type"] == "context_reset" and event["data"]["event"] == "reset_complete"
        ):
            actions_since_call += 1
            assert actions_since_call == 1


async def test_finished_todos_are_compressed_when_that_is_smaller() -> None:
    store = InMemoryStore()
    setup = make_setup(store, window=200_000)
    events = await run(setup, TASK)
    compressed = of_type(events, "todo_compressed")
    assert len(compressed) == 4
    assert all(e["data"]["tokens_after"] < e["data"]["tokens_before"] for e in compressed)
    session = store.current_session("t1")
    context = build_context(store, session)
    summaries = [m for m in context if context_kind(m) == "summary"]
    assert len(summaries) == 4
    # the todo list itself stays visible; the originals stay stored
    assert any(
        isinstance(m, AIMessage) and any(c["name"] == "write_todos" for c in m.tool_calls)
        for m in context
    )
    assert len(store.messages(session.id)) > len(context)


def _rows(store: InMemoryStore, specs: list[tuple[str, str | None]]):
    session = store.current_session("t1")
    messages = []
    for n, (role, todo) in enumerate(specs):
        if role == "assistant":
            messages.append(
                NewMessage(
                    role="assistant",
                    content=f"a{n}",
                    todo_id=todo,
                    tool_calls=[
                        {"name": "run_command", "args": {"command": f"c{n}"}, "id": f"k{n}"}
                    ],
                )
            )
            messages.append(
                NewMessage(
                    role="tool", content="ok\n[exit status 0]", tool_call_id=f"k{n}", todo_id=todo
                )
            )
        else:
            messages.append(NewMessage(role="user", content=f"u{n}"))
    return session, store.append("t1", session.id, messages)


def test_interleaved_todo_spans_are_replaced_where_the_first_row_stood() -> None:
    store = InMemoryStore()
    session, rows = _rows(
        store,
        [
            ("assistant", "A"),
            ("assistant", "B"),
            ("user", None),
            ("assistant", "A"),
            ("assistant", "B"),
        ],
    )
    a_seqs = [r.seq for r in rows if r.todo_id == "A"]
    edit = ContextEdit(kind="todo", summary="A done", seqs=a_seqs, todo_id="A")
    context = apply_edits(rows, [edit])
    texts = [m.content for m in context]
    assert "a0" not in texts and "a3" not in texts
    assert "a1" in texts and "a4" in texts and "u2" in texts
    assert "A done" in texts[0]  # where A's first row stood


def test_a_parent_roll_up_supersedes_its_children_summaries() -> None:
    store = InMemoryStore()
    session, rows = _rows(
        store, [("assistant", "child1"), ("assistant", "child2"), ("assistant", "parent")]
    )
    child1 = ContextEdit(
        kind="todo",
        summary="child1 done",
        seqs=[r.seq for r in rows if r.todo_id == "child1"],
        todo_id="child1",
    )
    child2 = ContextEdit(
        kind="todo",
        summary="child2 done",
        seqs=[r.seq for r in rows if r.todo_id == "child2"],
        todo_id="child2",
    )
    parent = ContextEdit(
        kind="todo", summary="parent done", seqs=[r.seq for r in rows], todo_id="parent"
    )
    context = apply_edits(rows, [child1, child2, parent])
    assert [m.content for m in context] == [
        "<summary>\nSummary of completed todo parent:\nparent done\n</summary>"
    ]


def test_nested_todos_tag_the_innermost_in_progress_leaf() -> None:
    from agent_core.context._todos import TodoTracker

    tracker = TodoTracker()
    tracker.observe(
        AIMessage(
            "",
            tool_calls=[
                {
                    "name": "write_todos",
                    "id": "w1",
                    "type": "tool_call",
                    "args": {
                        "todos": [
                            {"id": "p", "content": "parent", "status": "in_progress"},
                            {
                                "id": "c1",
                                "content": "child",
                                "status": "in_progress",
                                "parent_id": "p",
                            },
                        ]
                    },
                }
            ],
        )
    )
    assert tracker.active == "c1"
    tracker.observe(
        AIMessage(
            "",
            tool_calls=[
                {
                    "name": "write_todos",
                    "id": "w2",
                    "type": "tool_call",
                    "args": {
                        "todos": [
                            {"id": "p", "content": "parent", "status": "completed"},
                            {
                                "id": "c1",
                                "content": "child",
                                "status": "completed",
                                "parent_id": "p",
                            },
                        ]
                    },
                }
            ],
        )
    )
    assert tracker.take_closed() == ["p", "c1"]
    assert tracker.descendants("p") == {"c1"}


async def test_a_provider_context_overflow_triggers_the_strategy_and_one_retry() -> None:
    simulator = SimulatorChatModel()
    state = {"raised": False}

    def overflow_once(messages, **kwargs):
        if len(messages) > 6 and not state["raised"]:
            state["raised"] = True
            raise ContextOverflowError("prompt is too long: 210000 tokens > 200000 maximum")
        return simulator.invoke(
            messages, **{k: v for k, v in kwargs.items() if k in ("tools", "tool_choice")}
        )

    model = FunctionChatModel(fn=overflow_once, calls=[])
    setup = make_setup(
        window=200_000,
        model=model,
        model_name="anthropic:claude-sonnet-4-5",
        handoff_model=simulator,
    )
    events = await run(setup, TASK)
    complete = of_type(events, "context_reset", "reset_complete")
    assert complete and complete[0]["data"]["trigger"] == "overflow"
    assert not of_type(events, "error")
    final = [
        m
        for m in setup.store.messages(setup.store.current_session("t1").id)
        if m.role == "assistant"
    ][-1]
    assert "complete" in final.content


async def test_stop_ends_the_run_and_keeps_what_was_said() -> None:
    setup = make_setup(window=200_000, model=SimulatorChatModel(chunk_delay=0.02))
    cancel = asyncio.Event()
    events = []
    async for event in ThreadRunner().submit(setup, TASK, cancel=cancel):
        events.append(event.model_dump())
        if isinstance(event, TokenEvent) and len(of_type(events, "token")) == 3:
            cancel.set()
    assert events[-1] == {"type": "done", "data": {"cancelled": True}}
    rows = setup.store.messages(setup.store.current_session("t1").id)
    assert rows[0].content == TASK
    stopped = [r for r in rows if r.meta.get("stopped")]
    assert len(stopped) == 1 and stopped[0].content.startswith("Planning")
    # the thread is usable afterwards
    more = await collect(ThreadRunner().submit(setup, "continue"))
    assert more[-1]["data"]["cancelled"] is False


async def test_the_simulator_finishes_its_todos_when_a_compaction_hides_its_todo_list() -> None:
    # Each compaction hides the write_todos calls before the kept span; the summary carries
    # the list, so the simulator goes on instead of planning from the start again (a loop).
    setup = make_setup(window=4000, context_strategy="compact", keep_recent_tokens=600)
    events = await run(setup, TASK)
    session = setup.store.current_session("t1")
    rows = setup.store.messages(session.id)
    edits = [e for e in setup.store.context_edits(session.id) if e.kind == "compaction"]
    todo_seqs = [r.seq for r in rows if any(c["name"] == "write_todos" for c in r.tool_calls)]
    assert edits and any(seq <= edits[-1].upto_seq for seq in todo_seqs)
    assert "<todo-state>" in edits[-1].summary
    assert sum(r.content.startswith("Planning the work") for r in rows) == 1
    assert rows[-1].content.startswith("All 4 todos are complete")
    assert not of_type(events, "error")
