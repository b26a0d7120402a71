"""Undoing a compaction or a mask: the exact previous view, and no immediate redo."""

from __future__ import annotations

from langchain_core.messages import AIMessage

from agent_core.accounting._calibration import ContextEstimator
from agent_core.context._build import build_context
from agent_core.events import Event, MarkerEvent
from agent_core.runtime._coordinator import SessionCoordinator
from agent_core.runtime._middleware import build_middleware
from agent_core.storage._memory_store import InMemoryStore
from agent_core.storage._records import ContextEdit, NewMessage
from agent_core.strategies._plan import Decision
from agent_core.strategies._undo import UNDO_MARGIN, held_back, undo_hold, undo_position
from agent_core.testing import FunctionChatModel
from tests.agent_core.runtime_helpers import make_setup

OPUS = "anthropic:claude-opus-4-1"


def _seed(store: InMemoryStore, steps: int, start: int = 0) -> None:
    session = store.current_session("t1")
    rows = [] if start else [NewMessage(role="user", content="Fix the build")]
    for n in range(start, start + steps):
        call = {"name": "run_command", "args": {"command": f"make {n}"}, "id": f"c{n}"}
        rows += [
            NewMessage(role="assistant", content=f"step {n}", tool_calls=[call]),
            NewMessage(
                role="tool",
                content=f"build log {n} " + "line " * 300,
                tool_call_id=f"c{n}",
                name="run_command",
            ),
        ]
    store.append("t1", session.id, rows)


def _coordinator(store: InMemoryStore, window: int = 12_000, **policy) -> SessionCoordinator:
    model = FunctionChatModel(fn=lambda messages: AIMessage(content="Summary of the steps."))
    setup = make_setup(
        store, model=model, model_name=OPUS, window=window, keep_recent_tokens=900, **policy
    )
    estimator = ContextEstimator(OPUS, window_override=window)
    return SessionCoordinator(setup, estimator=estimator, emit=lambda e: None)


def _session(store: InMemoryStore):
    return store.current_session("t1")


async def test_undoing_a_compaction_restores_the_exact_previous_view() -> None:
    store = InMemoryStore()
    _seed(store, 8)
    coordinator = _coordinator(store)
    before = build_context(store, _session(store))
    coordinator.adopt(before)
    assert await coordinator.compact(before, coordinator.measure(before)) is not None
    assert build_context(store, _session(store)) != before

    store.undo_context_edit(_session(store).id, 0)

    assert build_context(store, _session(store)) == before


def test_undoing_a_mask_restores_the_exact_previous_view() -> None:
    store = InMemoryStore()
    _seed(store, 8)
    coordinator = _coordinator(store)
    before = build_context(store, _session(store))
    coordinator.adopt(before)
    assert coordinator.mask(before, 0.5) is not None

    store.undo_context_edit(_session(store).id, 0)

    assert build_context(store, _session(store)) == before


async def _before_model(coordinator: SessionCoordinator) -> None:
    reset_middleware = build_middleware(coordinator)[0]
    state = {"messages": build_context(coordinator.store, coordinator.session)}
    coordinator.adopt(state["messages"])
    await reset_middleware.abefore_model(state, None)


async def test_after_an_undo_masking_waits_until_the_context_grows_by_the_margin() -> None:
    store = InMemoryStore()
    _seed(store, 8)
    await _before_model(_coordinator(store, window=6_000))
    [mask] = store.context_edits(_session(store).id)
    assert mask.kind == "mask" and mask.utilization is not None
    store.undo_context_edit(_session(store).id, 0)

    await _before_model(_coordinator(store, window=6_000))  # the next turn, same size: held back
    assert len(store.context_edits(_session(store).id)) == 1

    _seed(store, 4, start=8)  # grown by far more than the margin
    await _before_model(_coordinator(store, window=6_000))
    edits = store.context_edits(_session(store).id)
    assert len(edits) == 2 and edits[1].kind == "mask" and not edits[1].undone


def test_the_hold_covers_compaction_only_below_the_margin() -> None:
    edits = [ContextEdit(kind="compaction", summary="s", utilization=0.55, undone=True)]
    hold = undo_hold(edits)
    assert hold == 0.55 + UNDO_MARGIN
    assert undo_hold([edits[0].model_copy(update={"undone": False})]) is None
    compact = Decision(action="compact", strategy="compact", utilization=0.6, reason="r")
    assert held_back(compact, hold).action == "keep"
    assert held_back(compact.model_copy(update={"utilization": 0.66}), hold).action == "compact"
    reset = Decision(action="reset", strategy="reset", utilization=0.6, reason="r")
    assert held_back(reset, hold).action == "reset"


def test_only_the_latest_edit_may_be_undone_and_only_before_the_next_reply() -> None:
    store = InMemoryStore()
    session = store.current_session("t1")
    store.append("t1", session.id, [NewMessage(role="user", content="go")])
    for n in range(2):
        store.add_context_edit(
            session.id,
            ContextEdit(kind="mask", summary=""),
            NewMessage(role="event", content=f"Masked {n}", meta={"event": "masking", "edit": n}),
        )
    rows = store.messages(session.id)
    first, second = rows[1], rows[2]
    edits = store.context_edits(session.id)

    assert undo_position(rows, edits, second.id) == 1
    assert (
        undo_position(rows, edits, first.id) == "Only the latest compaction or mask can be undone."
    )
    assert undo_position(rows, edits, rows[0].id).startswith("Only a compaction or mask")
    store.append("t1", session.id, [NewMessage(role="assistant", content="done")])
    assert undo_position(store.messages(session.id), edits, second.id) == (
        "The agent has answered since; it can no longer be undone."
    )
    store.undo_context_edit(session.id, 1)
    assert (
        undo_position(rows, store.context_edits(session.id), second.id) == "That is already undone."
    )


async def test_edit_events_name_their_stored_marker_so_a_live_marker_can_be_undone() -> None:
    store = InMemoryStore()
    _seed(store, 8)
    emitted: list[Event] = []
    coordinator = _coordinator(store)
    coordinator.emit = emitted.append
    before = build_context(store, _session(store))
    coordinator.adopt(before)
    masked = coordinator.mask(before)
    assert masked is not None
    await coordinator.compact(masked, coordinator.measure(masked))

    rows = store.messages(_session(store).id)
    markers = {row.id: row.meta["edit"] for row in rows if row.role == "event"}
    named = {e.marker_id: e.edit for e in emitted if isinstance(e, MarkerEvent)}
    assert named == markers and sorted(markers.values()) == [0, 1]


async def _before_model_stack(coordinator: SessionCoordinator) -> None:
    """One model call's before-model hooks, in stack order (reset, compaction, todos)."""
    state = {"messages": build_context(coordinator.store, coordinator.session)}
    coordinator.adopt(state["messages"])
    for middleware in build_middleware(coordinator):
        if hasattr(middleware, "abefore_model"):
            update = await middleware.abefore_model(state, None)
            if update and "messages" in update:
                state = {"messages": build_context(coordinator.store, coordinator.session)}


async def test_after_an_undone_compaction_the_next_call_does_not_compact_again() -> None:
    store = InMemoryStore()
    _seed(store, 8)
    await _before_model_stack(_coordinator(store, window=5_000, mask_threshold=None))
    [compaction] = store.context_edits(_session(store).id)
    assert compaction.kind == "compaction"
    store.undo_context_edit(_session(store).id, 0)

    # continue at the same size
    await _before_model_stack(_coordinator(store, window=5_000, mask_threshold=None))
    assert len(store.context_edits(_session(store).id)) == 1

    _seed(store, 4, start=8)
    await _before_model_stack(_coordinator(store, window=5_000, mask_threshold=None))
    edits = store.context_edits(_session(store).id)
    assert len(edits) == 2 and edits[1].kind == "compaction" and not edits[1].undone


def test_a_turns_opening_context_is_the_session_as_a_read_gives_it() -> None:
    store = InMemoryStore()
    _seed(store, steps=3)
    session = store.current_session("t1")
    store.add_context_edit(session.id, ContextEdit(kind="mask", summary="", seqs=[3]))
    coordinator = _coordinator(store)
    store.enqueue_pending("t1", "and run the tests")
    coordinator.deliver_pending()
    coordinator.note_problem("the MCP server 'docs' did not answer")
    assert coordinator.opening_context() == build_context(store, session)
    # Taken once: later calls read the store.
    store.append("t1", session.id, [NewMessage(role="user", content="one more")])
    assert coordinator.opening_context() == build_context(store, session)
    assert coordinator.opening_context()[-1].content == "one more"
