"""The open session of one run: what is stored, delivered and measured, and the one event
sink the coordinator owns. Resets (:mod:`._reset`) and context edits (:mod:`._edits`) build on
it; :class:`SessionCoordinator` (:mod:`._coordinator`) is the two together."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from agent_core import events
from agent_core.accounting._calibration import ContextEstimator, TokenEstimate
from agent_core.accounting._models import model_info
from agent_core.context._build import (
    apply_edits,
    build_context,
    context_kind,
    from_langchain,
    to_langchain,
)
from agent_core.context._todos import TodoTracker
from agent_core.events import Event
from agent_core.history._tools import HISTORY_TOOL_NAMES
from agent_core.runtime._turn import EventSink, TurnSetup
from agent_core.storage._records import ContextEdit, NewMessage, RowMark, StoredMessage
from agent_core.strategies._awaiting import answers_first
from agent_core.strategies._pipeline import opening_messages
from agent_core.strategies._reset_control import warn_threshold
from agent_core.strategies._undo import undo_hold

__all__ = ["OpenSession", "todo_state_block"]


def todo_state_block(todos: dict[str, dict[str, Any]], task: str) -> str:
    items = [{"id": k, **v} for k, v in todos.items()]
    return f"\n<todo-state>{json.dumps({'task': task, 'todos': items}, ensure_ascii=False)}</todo-state>"


class OpenSession:
    """The live state of one run: current session, what is persisted, todos, calibration."""

    def __init__(self, setup: TurnSetup, *, estimator: ContextEstimator, emit: EventSink):
        self.setup = setup
        self.store = setup.store
        self._sink = emit
        self.estimator = estimator
        self.session = self.store.current_session(setup.thread_id)
        self.info = model_info(setup.model_name, window_override=setup.policy.window_override)
        self.todos = TodoTracker()
        self._persisted: set[str] = set()
        self._seq: dict[str, int] = {}
        rows, edits = (
            self.store.messages(self.session.id),
            self.store.context_edits(self.session.id),
        )
        self._replay_todos(rows)
        #: Below this utilization automatic masking and compaction wait (after an undo).
        self.undo_hold = undo_hold(edits)
        # The session as read here, plus what this turn stores before its first model call,
        # until opening_context() takes it (the turn's start reads the session once); any
        # other write drops it, and opening_context() reads the store again.
        self._opening: tuple[list[StoredMessage], list[ContextEdit]] | None = (list(rows), edits)
        #: The latest measure: what the next model call is sent (recorded on its reply).
        self.last_estimate: TokenEstimate | None = None
        #: The last compaction's summary was not smaller than what it would replace.
        self.compaction_discarded = False

    # events -----------------------------------------------------------------------
    def emit(self, event: Event) -> None:
        """Send ``event`` to the run's sink (the graph's stream writer, or an outbox)."""
        self._sink(event)

    def route_events(self, sink: EventSink) -> None:
        """From now on, events go to ``sink``."""
        self._sink = sink

    @contextlib.contextmanager
    def held_events(self) -> Iterator[None]:
        """Hold the events emitted inside the block, then send them to the sink there was
        before it (work off the event loop emits; only the loop may write the stream)."""
        sink, held = self._sink, []
        self._sink = held.append
        try:
            yield
        finally:
            self._sink = sink
            for event in held:
                sink(event)

    # bookkeeping ------------------------------------------------------------------
    def _replay_todos(self, rows: Sequence[StoredMessage]) -> None:
        for row in rows:
            if row.role == "assistant" and row.tool_calls:
                self.todos.observe_calls(row.tool_calls)
        self.todos.take_closed()
        for row in rows:
            self._remember(row.id, row.seq)

    def _remember(self, message_id: str | None, seq: int) -> None:
        if message_id:
            self._persisted.add(message_id)
            self._seq[message_id] = seq

    def adopt(self, messages: Sequence[BaseMessage]) -> None:
        """Mark messages built from the store as already persisted."""
        for message in messages:
            if message.id:
                self._persisted.add(message.id)

    def seq_of(self, message: BaseMessage) -> int | None:
        return self._seq.get(message.id or "")

    def head_fraction(self, messages: Sequence[BaseMessage]) -> float:
        """Share of the window the session's opening context (handoff, pinned files, system
        prompt, tool schemas) takes: what any new session would start with at least."""
        tokens = self.estimator.counter.count(
            opening_messages(messages),
            system=self.setup.system_prompt or None,
            tools=list(self.setup.tools) or None,
        )
        return tokens / self.info.context_window

    # persist ----------------------------------------------------------------------
    def unsynced(self, messages: Sequence[BaseMessage]) -> bool:
        """Whether :meth:`sync` has anything to store (checked without leaving the loop)."""
        return any(m.id not in self._persisted and context_kind(m) is None for m in messages)

    def sync(self, messages: Sequence[BaseMessage]) -> None:
        """Store the messages of this run that are not stored yet, in order, tagged."""
        fresh = [m for m in messages if m.id not in self._persisted and context_kind(m) is None]
        if not fresh:
            return
        rows = []
        for message in fresh:
            if isinstance(message, AIMessage):
                tag = self.todos.observe(message)
                rows.append(from_langchain(message, todo_id=tag, model=self.setup.model_name))
            elif isinstance(message, ToolMessage):
                tag = self.todos.tag_for_tool_result(message.tool_call_id)
                rows.append(from_langchain(message, todo_id=tag))
            else:
                rows.append(from_langchain(message))
        self._opening = None
        stored = self.store.append(self.setup.thread_id, self.session.id, rows)
        for message, row in zip(fresh, stored, strict=True):
            self._remember(message.id, row.seq)
            self._remember(row.id, row.seq)
            self.emit(events.MessageEvent.of(row))
            if row.meta.get("incomplete"):
                self.emit(events.reply_cut_off(message_id=row.id))

    def note_problem(self, text: str) -> None:
        """Store ``text`` as a problem marker in the session (shown in the chat, reloads
        included; never sent to the model) and emit it: a tool source that failed."""
        (row,) = self.store.append(
            self.setup.thread_id,
            self.session.id,
            [NewMessage(role="event", content=text, meta={"event": "tool_problem"})],
        )
        self._opened([row])
        self._remember(row.id, row.seq)
        self.emit(events.MessageEvent.of(row))

    def answers_first(self) -> bool:
        """The session, as this turn opened it, ends in a cut turn's message the turn answers
        before the queue (:func:`~agent_core.strategies._awaiting.answers_first`)."""
        rows = self._opening[0] if self._opening is not None else []
        return answers_first([RowMark(r.seq, r.role, r.meta) for r in rows[-1:]])

    def deliver_pending(self, *, mid_turn: bool = False) -> list[BaseMessage]:
        """Deliver the queue into the session. ``mid_turn``: at a model call of a turn under
        way, so the rows say the user typed them while the agent worked (``queued``)."""
        rows = self.store.deliver_pending(self.setup.thread_id, self.session.id, queued=mid_turn)
        self._opened(rows)
        for row in rows:
            self._remember(row.id, row.seq)
            self.emit(events.MessageEvent.of(row))
        return to_langchain(rows)

    def note_turn_end(self, event: str, text: str) -> None:
        """Store and emit the marker of a turn that ended without the model's answer
        (``turn_failed`` with the reason, ``turn_stopped``): the chat shows it, a reload too,
        and the message it was for is not due a turn any more (:mod:`agent_core.strategies.
        awaiting`), so a provider that keeps failing is not asked again by itself."""
        (row,) = self.store.append(
            self.setup.thread_id,
            self.session.id,
            [NewMessage(role="event", content=text, meta={"event": event})],
        )
        self._opened([row])
        self._remember(row.id, row.seq)
        self.emit(events.MessageEvent.of(row))

    def _opened(self, rows: Sequence[StoredMessage]) -> None:
        if self._opening is not None:
            self._opening[0].extend(rows)

    def opening_context(self) -> list[BaseMessage]:
        """What the model sees at the start of the turn (as ``build_context`` would read it):
        the session read when the coordinator opened it, with the rows stored since (queued
        messages delivered, problems noted). The turn holds the thread's lock, so nothing
        else wrote model input meanwhile. Once; later calls read the store."""
        if self._opening is None:
            return build_context(self.store, self.session)
        rows, edits = self._opening
        self._opening = None
        return apply_edits(rows, edits)

    # measure ----------------------------------------------------------------------
    def measure(self, messages: Sequence[BaseMessage]) -> TokenEstimate:
        estimate = self.estimator.estimate(
            list(messages),
            system=self.setup.system_prompt or None,
            tools=list(self.setup.tools) or None,
        )
        policy = self.setup.policy
        self.emit(
            events.UtilizationEvent(
                tokens=estimate.tokens,
                window=estimate.window,
                basis=estimate.basis,
                compact_threshold=policy.compact_threshold,
                reset_threshold=policy.reset_threshold,
                warn_threshold=warn_threshold(policy, self.info.default_strategy),
                session_number=self.session.number,
            )
        )
        self.last_estimate = estimate
        return estimate

    def count(self, message: BaseMessage) -> int:
        return self.estimator.counter.count_message(message)

    @property
    def history_tools(self) -> bool:
        """Whether this run offers search_history/read_history (the assistant's switch)."""
        return any(tool.name in HISTORY_TOOL_NAMES for tool in self.setup.tools)

    @staticmethod
    def _marker_ref(marker: StoredMessage | None, position: int) -> dict[str, Any]:
        """The stored marker row of the session's edit at ``position`` and that position:
        the timeline keys a live marker like a reloaded one, so it can undo and expand it."""
        return {"marker_id": marker.id if marker else None, "edit": position}

    def _rebuilt(self, rows: Sequence[StoredMessage] | None = None) -> list[BaseMessage]:
        context = (
            build_context(self.store, self.session)
            if rows is None
            else apply_edits(rows, self.store.context_edits(self.session.id))
        )
        self.adopt(context)
        return context
