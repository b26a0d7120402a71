"""Applies context decisions to one thread's session: persist, deliver, measure, mask,
reset, compact, compress todos. The middleware calls it; it owns no decision logic of its own
(that is :mod:`agent_core.strategies`)."""

from __future__ import annotations

import asyncio
import fnmatch
import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from agent_core import events
from agent_core.accounting.calibration import ContextEstimator, TokenEstimate
from agent_core.accounting.models import model_info
from agent_core.context.build import (
    apply_edits,
    build_context,
    context_kind,
    from_langchain,
    to_langchain,
)
from agent_core.context.compaction import call_usage, summarize_for_compaction, worth_keeping
from agent_core.context.todos import TodoTracker, model_todo_summary, span_rows, todo_summary
from agent_core.errors import HandoffCancelled, HandoffGenerationError
from agent_core.handoff.artifact import HandoffArtifact, handoff_context_message, handoff_filename
from agent_core.handoff.facts import extract_facts
from agent_core.handoff.generation import generate_handoff
from agent_core.handoff.inventory import take_inventory
from agent_core.history.notes import MAX_LISTED_SESSIONS, compacted_note, history_note
from agent_core.history.tools import HISTORY_TOOL_NAMES, read_history_call
from agent_core.redaction import known_secrets, redact_text
from agent_core.runtime.turn import EventSink, TurnSetup
from agent_core.runtime.user_control import review_opening, reviewed_artifact
from agent_core.storage.records import QUEUED, ContextEdit, NewMessage, StoredMessage
from agent_core.strategies.cutoff import safe_cutoff
from agent_core.strategies.masking import mask_candidates, placeholder
from agent_core.strategies.pipeline import opening_messages, projected_after_compaction
from agent_core.strategies.reset_control import warn_threshold
from agent_core.strategies.undo import undo_hold

__all__ = ["SessionCoordinator", "pinned_context"]

log = logging.getLogger(__name__)
_PINNED_MAX_CHARS = 40_000


def pinned_context(store: Any, thread_id: str, patterns: Sequence[str]) -> list[NewMessage]:
    """Rows for the pinned files (plan, sprint contracts, evaluator config) of a thread."""
    rows: list[NewMessage] = []
    for path in store.list_files(thread_id):
        if path.startswith("HANDOFF-") or not any(fnmatch.fnmatch(path, p) for p in patterns):
            continue
        content = store.read_file(thread_id, path) or ""
        note = ""
        if len(content) > _PINNED_MAX_CHARS:
            content, note = (
                content[:_PINNED_MAX_CHARS],
                "\n[... truncated; read_file shows the rest]",
            )
        rows.append(
            NewMessage(
                role="pinned",
                content=f'<pinned-file path="{path}">\n{content}{note}\n</pinned-file>',
                meta={"path": path},
            )
        )
    return rows


def _todo_state_block(todos: dict[str, dict[str, Any]], task: str) -> str:
    items = [{"id": k, **v} for k, v in todos.items()]
    return f"\n<todo-state>{json.dumps({'task': task, 'todos': items}, ensure_ascii=False)}</todo-state>"


def _is_empty(artifact: HandoffArtifact) -> bool:
    return not any(
        (
            artifact.completed_work,
            artifact.in_progress,
            artifact.remaining_tasks,
            artifact.key_decisions,
            artifact.files_modified,
            artifact.current_state_summary.strip(),
        )
    )


def _has_evidence(facts: Any) -> bool:
    return bool(facts.files_modified or facts.commands or facts.todos or facts.commits)


#: Meta key of a user message handed to the next session verbatim (the id of the original).
CARRIED_OVER = "carried_over_from"
#: ``meta["event"]`` of the marker of a compaction whose summary was not smaller.
COMPACTION_DISCARDED = "compaction_discarded"


def unanswered_requests(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The user's messages after the model's last answer, oldest first."""
    tail: list[BaseMessage] = []
    for message in reversed(messages):
        if message.type == "ai":
            break
        if message.type == "human" and context_kind(message) is None:
            tail.append(message)
    return tail[::-1]


class SessionCoordinator:
    """The live state of one run: current session, what is persisted, todos, calibration."""

    def __init__(self, setup: TurnSetup, *, estimator: ContextEstimator, emit: EventSink):
        self.setup = setup
        self.store = setup.store
        self.emit = emit
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

    # reset ------------------------------------------------------------------------
    async def reset(
        self,
        messages: Sequence[BaseMessage],
        *,
        trigger: str,
        utilization: float,
        focus: str | None = None,
        cancel: asyncio.Event | None = None,
        raise_errors: bool = False,
    ) -> list[BaseMessage] | None:
        """End the session with a handoff and open the next one. Returns the new context,
        or None when the reset failed (the old session continues)."""
        old = self.session
        self.emit(
            events.ResetStarting(
                session_id=old.id,
                session_number=old.number,
                context_utilization=round(utilization, 4),
                trigger=trigger,
                threshold=self.setup.policy.reset_threshold,
            )
        )
        self.emit(events.InputBlocked(reason="Context reset in progress"))
        try:
            context = await self._handoff_and_commit(
                messages, trigger=trigger, utilization=utilization, focus=focus, cancel=cancel
            )
        except HandoffCancelled:
            self.emit(events.ResetFailed(reason="Handoff cancelled", cancelled=True))
            if raise_errors:
                raise
            return None
        except Exception as exc:  # the old session must go on whatever failed
            log.exception("reset of thread %s failed", self.setup.thread_id)
            reason = redact_text(str(exc), known_secrets()) or type(exc).__name__
            self.emit(events.ResetFailed(reason=reason))
            if raise_errors:
                raise
            return None
        return context

    async def _handoff_and_commit(self, messages, *, trigger, utilization, focus, cancel):
        old = self.session
        # Facts come from every original row; without context edits the model's view already
        # is exactly that, so the session is not converted a second time.
        edited = bool(self.store.context_edits(old.id))
        rows = self.store.messages(old.id)
        originals = (
            to_langchain(rows) if edited else [m for m in messages if context_kind(m) is None]
        )
        facts = extract_facts(originals)
        # A handoff the user edited on review is the one this session really started from.
        started_from = reviewed_artifact(old, self.store.context_edits(old.id))
        previous = HandoffArtifact.model_validate(started_from) if started_from else None
        handoff_model = self.setup.handoff_model or self.setup.model
        result = await generate_handoff(
            handoff_model,
            list(messages),
            structured_method=getattr(handoff_model, "structured_method", None),
            facts=facts,
            focus=focus,
            budget_tokens=self.setup.handoff_budget_tokens,
            session_number=old.number,
            trigger=trigger,
            utilization=min(max(utilization, 0.0), 1.0),
            model_name=self.setup.model_name,
            # The session's own tokenizer sizes the handoff request, not a stand-in's.
            count_tokens=self.estimator.counter.count_text,
            previous=previous,
            pinned=[
                p
                for p in self.store.list_files(self.setup.thread_id)
                if any(fnmatch.fnmatch(p, g) for g in self.setup.policy.pinned_paths)
            ],
            cancel=cancel,
            # The agent's own request, so the handoff call shares its cached prefix.
            system_prompt=self.setup.system_prompt or None,
            tools=list(self.setup.tools),
            window_tokens=self.info.context_window,
            # Checked against the session's original rows, read independently of the facts.
            inventory=take_inventory(originals),
            locate=self._locator(originals, rows) if self.history_tools else None,
        )
        if cancel is not None and cancel.is_set():
            raise HandoffCancelled("Handoff cancelled")
        artifact = result.artifact
        if trigger == "manual" and (
            _is_empty(artifact) or (result.source == "facts_only" and not _has_evidence(facts))
        ):
            # an empty handoff would start a session with no context: a failure, not a cancel
            raise HandoffGenerationError(
                "the model returned no handoff and there is no tool activity to build one from"
            )
        # The thread's goal, not this session's last message: a session that started from a
        # handoff may have no user message of its own.
        task = artifact.goal or next(
            (
                m.content
                for m in reversed(originals)
                if m.type == "human" and context_kind(m) is None
            ),
            "",
        )
        opening = handoff_context_message(artifact, history=self._history_note())
        if self.todos.todos:
            opening += _todo_state_block(self.todos.todos, str(task)[:500])
        # The handoff call is a model call like the others: its tokens stay with the row
        # that opens the session (the chart and a reload read them there).
        usage = call_usage(result.prompt_tokens, result.output_tokens)
        context = [
            NewMessage(
                role="handoff",
                content=opening,
                meta={"handoff_source": result.source, "usage": usage},
            )
        ]
        if self.setup.review_handoffs:
            context.append(review_opening())
        context += pinned_context(self.store, self.setup.thread_id, self.setup.policy.pinned_paths)
        # A reset before the model saw the newest user messages (they filled the context)
        # hands them over verbatim, so the next session answers them, not just mentions them.
        context += [
            NewMessage(
                role="user",
                content=str(m.content),
                meta={
                    CARRIED_OVER: m.id,
                    **({QUEUED: True} if m.additional_kwargs.get(QUEUED) else {}),
                },
            )
            for m in unanswered_requests(messages)
        ]
        handoff = artifact.model_dump(mode="json")
        self._opening = None
        new, rows = self.store.commit_reset(
            self.setup.thread_id,
            old_session_id=old.id,
            trigger=trigger,
            utilization=utilization,
            model=self.setup.model_name,
            handoff=handoff,
            handoff_path=handoff_filename(old.number),
            handoff_markdown=artifact.to_markdown(),
            context=context,
        )
        self.session = new
        self.undo_hold = None
        for row in rows:
            self._remember(row.id, row.seq)
        self.emit(
            events.ResetComplete(
                old_session_id=old.id,
                new_session_id=new.id,
                session=new.model_copy(deep=True),
                session_number=new.number,
                trigger=trigger,
                utilization=round(utilization, 4),
                model=self.setup.model_name,
                handoff=artifact,
                handoff_source=result.source,
                handoff_tokens=result.output_tokens,
                handoff_input_tokens=result.prompt_tokens,
                review=self.setup.review_handoffs,
                delivered=[
                    r.model_copy(deep=True)
                    for r in rows
                    if r.role == "user" and CARRIED_OVER not in r.meta
                ],
            )
        )
        return to_langchain(rows)

    def _locator(self, messages: Sequence[BaseMessage], rows: Sequence[StoredMessage]):
        """Where each of ``messages`` is stored: (session number, 1-based position among the
        session's rows), as read_history names it."""
        position = {row.seq: i for i, row in enumerate(rows, 1)}
        by_id = {row.id: row.seq for row in rows}
        number = self.session.number

        def locate(index: int) -> tuple[int, int] | None:
            message_id = messages[index].id if 0 <= index < len(messages) else None
            seq = by_id.get(message_id or "") or self._seq.get(message_id or "")
            return (number, position[seq]) if seq in position else None

        return locate

    @property
    def history_tools(self) -> bool:
        """Whether this run offers search_history/read_history (the assistant's switch)."""
        return any(tool.name in HISTORY_TOOL_NAMES for tool in self.setup.tools)

    def _history_note(self) -> str:
        if not self.history_tools:
            return ""
        sessions = self.store.sessions(self.setup.thread_id)
        listed = sessions[-MAX_LISTED_SESSIONS:]
        return history_note(sessions, {s.id: self.store.messages(s.id) for s in listed})

    def _compacted_span(self, upto_seq: int) -> tuple[int, int]:
        """First and last position (1-based, in the session's stored rows) of the
        conversation up to ``upto_seq``: what a compaction there hides, earlier ones included."""
        rows = self.store.messages(self.session.id)
        places = [
            i
            for i, row in enumerate(rows, 1)
            if row.seq <= upto_seq and row.role not in ("handoff", "pinned", "event")
        ]
        return (min(places), max(places)) if places else (1, 1)

    @staticmethod
    def _marker_ref(marker: StoredMessage | None, position: int) -> dict[str, Any]:
        """The stored marker row of the session's edit at ``position`` and that position:
        the timeline keys a live marker like a reloaded one, so it can undo and expand it."""
        return {"marker_id": marker.id if marker else None, "edit": position}

    # masking ------------------------------------------------------------------------
    def mask(
        self, messages: Sequence[BaseMessage], utilization: float | None = None
    ) -> list[BaseMessage] | None:
        """Mask the old tool outputs :func:`mask_candidates` picks; the rebuilt context, or
        None when there is nothing to mask. Stored as one ``ContextEdit(kind="mask")``."""
        picked = [
            (messages[i], self.seq_of(messages[i]))
            for i in mask_candidates(messages, self.setup.policy.keep_recent_tokens, self.count)
        ]
        picked = [(message, seq) for message, seq in picked if seq is not None]
        if not picked:
            return None
        position = {row.seq: i for i, row in enumerate(self.store.messages(self.session.id), 1)}
        count_text = self.estimator.counter.count_text
        placeholders: dict[int, str] = {}
        before = after = 0
        for message, seq in picked:
            tokens = self.count(message)
            reread = (
                read_history_call(self.session.number, position[seq])
                if self.history_tools and seq in position
                else "running the tool again"
            )
            placeholders[seq] = placeholder(str(message.name or "tool"), tokens, reread)
            before += tokens
            after += count_text(placeholders[seq])
        edit = ContextEdit(
            kind="mask",
            summary="",
            seqs=sorted(placeholders),
            placeholders=placeholders,
            tokens_before=before,
            tokens_after=after,
            utilization=None if utilization is None else round(utilization, 4),
        )
        note = f"Masked {len(picked)} old tool outputs ({before:,} → {after:,} tokens)"
        marker = NewMessage(
            role="event",
            content=note,
            meta={
                "event": "masking",
                "tokens_before": before,
                "tokens_after": after,
                "outputs": len(picked),
                "edit": len(self.store.context_edits(self.session.id)),
            },
        )
        self._opening = None
        stored = self.store.add_context_edit(self.session.id, edit, marker)
        self.emit(
            events.MarkerEvent(
                type="masking",
                message=note,
                tokens_before=before,
                tokens_after=after,
                outputs=len(picked),
                session_number=self.session.number,
                **self._marker_ref(stored, marker.meta["edit"]),
            )
        )
        return self._rebuilt()

    def _task(self, messages: Sequence[BaseMessage]) -> str:
        """What the session works on: its newest user request, else the thread's goal."""
        latest = next(
            (
                str(m.content)
                for m in reversed(messages)
                if m.type == "human" and context_kind(m) is None
            ),
            "",
        )
        return latest or str((self.session.handoff or {}).get("goal") or "")

    # compaction ---------------------------------------------------------------------
    def compaction_cut(self, messages: Sequence[BaseMessage]) -> int:
        return safe_cutoff(messages, self.setup.policy.keep_recent_tokens, self.count)

    def projected_after_compaction(
        self, messages: Sequence[BaseMessage], estimate: TokenEstimate
    ) -> float:
        return projected_after_compaction(
            messages,
            estimate.tokens,
            estimate.window,
            keep_recent_tokens=self.setup.policy.keep_recent_tokens,
            summary_tokens=self.setup.compaction_summary_tokens,
            count=self.count,
        )

    async def compact(
        self, messages: Sequence[BaseMessage], estimate: TokenEstimate
    ) -> list[BaseMessage] | None:
        """Summarize the part before the keep-recent cut; the new context, or None when
        there is nothing to compact or the summary was discarded (``compaction_discarded``)."""
        self.compaction_discarded = False
        cut = self.compaction_cut(messages)
        older = [m for m in messages[:cut] if context_kind(m) not in ("handoff", "pinned")]
        seqs = [s for s in (self.seq_of(m) for m in older) if s is not None]
        if len(older) < 2 or not seqs:
            return None
        written = await summarize_for_compaction(
            self.setup.model,
            older,
            max_tokens=self.setup.compaction_summary_tokens,
            count_text=self.estimator.counter.count_text,
        )
        summary = written.text
        usage = call_usage(written.input_tokens, written.output_tokens)
        if self.history_tools:
            first, last = self._compacted_span(max(seqs))
            summary += "\n\n" + compacted_note(self.session.number, first, last)
        if self.todos.todos:
            # The span may hold the latest write_todos call; without the list the agent would
            # plan its work again from the start after every compaction (and loop).
            summary += _todo_state_block(self.todos.todos, self._task(messages)[:500])
        before = sum(self.count(m) for m in older)
        after = self.estimator.counter.count_text(summary)
        self.compaction_discarded = not worth_keeping(before, after)
        if self.compaction_discarded:
            self._discard_compaction(len(older), before, after, usage, estimate)
            return None
        edit = ContextEdit(
            kind="compaction",
            summary=summary,
            upto_seq=max(seqs),
            tokens_before=before,
            tokens_after=after,
            utilization=round(estimate.fraction, 4),
        )
        note = f"Compacted {len(older)} earlier messages ({before:,} → {after:,} tokens)"
        marker = NewMessage(
            role="event",
            content=note,
            meta={
                "event": "compaction",
                "tokens_before": before,
                "tokens_after": after,
                "messages": len(older),
                "utilization": round(estimate.fraction, 4),
                "edit": len(self.store.context_edits(self.session.id)),
                "usage": usage,
            },
        )
        self._opening = None
        stored = self.store.add_context_edit(self.session.id, edit, marker)
        self.emit(
            events.MarkerEvent(
                type="compaction",
                message=note,
                tokens_before=before,
                tokens_after=after,
                messages=len(older),
                session_number=self.session.number,
                call_input_tokens=usage["input_tokens"],
                call_output_tokens=usage["output_tokens"],
                **self._marker_ref(stored, marker.meta["edit"]),
            )
        )
        return self._rebuilt()

    def _discard_compaction(
        self, messages: int, before: int, after: int, usage: dict[str, int], estimate: TokenEstimate
    ) -> None:
        """The summary is not smaller than what it would replace: nothing is stored as a
        context edit (the model keeps the originals); a marker row says so, with what the
        summarizing call cost, and so does the ``compaction`` event (``discarded``)."""
        note = (
            f"Compaction discarded: its summary ({after:,} tokens) was not smaller than the "
            f"{messages} earlier messages it would replace ({before:,} tokens)"
        )
        (stored,) = self.store.append(
            self.setup.thread_id,
            self.session.id,
            [
                NewMessage(
                    role="event",
                    content=note,
                    meta={
                        "event": COMPACTION_DISCARDED,
                        "tokens_before": before,
                        "tokens_after": after,
                        "messages": messages,
                        "utilization": round(estimate.fraction, 4),
                        "usage": usage,
                    },
                )
            ],
        )
        self._opening = None
        self._remember(stored.id, stored.seq)
        self.emit(
            events.MarkerEvent(
                type="compaction",
                message=note,
                tokens_before=before,
                tokens_after=after,
                messages=messages,
                session_number=self.session.number,
                discarded=True,
                marker_event=COMPACTION_DISCARDED,
                call_input_tokens=usage["input_tokens"],
                call_output_tokens=usage["output_tokens"],
                marker_id=stored.id,
                edit=None,
            )
        )

    # todos ---------------------------------------------------------------------------
    async def write_todo_summaries(self) -> dict[str, str]:
        """The model's summary of each todo that just closed (by key), written through the
        handoff writer over the todo's span; none for a todo it could not sum up."""
        model = self.setup.handoff_model or self.setup.model
        closed = list(self.todos.closed)
        if model is None or not closed:
            return {}
        rows = await asyncio.to_thread(self.store.messages, self.session.id)
        written = {}
        for key in closed:
            todo = self.todos.todos.get(key, {"content": key, "status": "completed"})
            span = span_rows(rows, {key} | self.todos.descendants(key))
            if len(span) < 2:
                continue
            try:
                text = await model_todo_summary(
                    model, todo["content"], todo["status"], span, blocker=todo.get("blocker")
                )
            except Exception as exc:  # noqa: BLE001 - the evidence's summary stands in
                log.info("todo summary by the model failed (%s)", type(exc).__name__)
                text = None
            if text:
                written[key] = text
        return written

    def compress_finished_todos(
        self, written: Mapping[str, str] | None = None
    ) -> list[BaseMessage] | None:
        """Replace each todo that just closed by its summary where that is smaller: the
        model's (``written``), else one built from the span's evidence."""
        closed = self.todos.take_closed()
        if not closed:
            return None
        rows = self.store.messages(self.session.id)
        edits = len(self.store.context_edits(self.session.id))
        changed = False
        for key in closed:
            todo = self.todos.todos.get(key, {"content": key, "status": "completed"})
            span = span_rows(rows, {key} | self.todos.descendants(key))
            if len(span) < 2:
                continue
            span_messages = to_langchain(span)
            before = sum(self.count(m) for m in span_messages)
            evidence = todo_summary(
                todo["content"], todo["status"], span, blocker=todo.get("blocker")
            )
            summary = (written or {}).get(key) or evidence
            after = self.estimator.counter.count_text(summary)
            if after >= before and summary is not evidence:
                summary = evidence  # the model's ran longer than the span: never larger
                after = self.estimator.counter.count_text(summary)
            if after >= before:
                continue  # only worth it when smaller
            edit = ContextEdit(
                kind="todo",
                summary=summary,
                seqs=[r.seq for r in span],
                todo_id=key,
                tokens_before=before,
                tokens_after=after,
            )
            note = f"Compressed finished todo “{todo['content']}” ({before:,} → {after:,} tokens)"
            marker = NewMessage(
                role="event",
                content=note,
                meta={
                    "event": "todo_compressed",
                    "todo_id": key,
                    "tokens_before": before,
                    "tokens_after": after,
                    "edit": edits,
                },
            )
            self._opening = None
            stored = self.store.add_context_edit(self.session.id, edit, marker)
            edits += 1
            self.emit(
                events.MarkerEvent(
                    type="todo_compressed",
                    message=note,
                    todo_id=key,
                    tokens_before=before,
                    tokens_after=after,
                    session_number=self.session.number,
                    **self._marker_ref(stored, marker.meta["edit"]),
                )
            )
            changed = True
        # The rows read above are still the session's model input: only markers (never
        # model input) were added since.
        return self._rebuilt(rows) if changed else None

    def _rebuilt(self, rows: Sequence[StoredMessage] | None = None) -> list[BaseMessage]:
        context = (
            build_context(self.store, self.session)
            if rows is None
            else apply_edits(rows, self.store.context_edits(self.session.id))
        )
        self.adopt(context)
        return context
