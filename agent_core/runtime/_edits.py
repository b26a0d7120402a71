"""Context edits of the open session: masking old tool outputs, compaction, and the
compression of finished todos, each stored as a ``ContextEdit`` with its marker row."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence

from langchain_core.messages import BaseMessage

from agent_core import events
from agent_core.accounting._calibration import TokenEstimate
from agent_core.context._build import context_kind, to_langchain
from agent_core.context._compaction import call_usage, summarize_for_compaction, worth_keeping
from agent_core.context._todos import model_todo_summary, span_rows, todo_summary
from agent_core.history._notes import compacted_note
from agent_core.history._tools import read_history_call
from agent_core.runtime._open_session import OpenSession, todo_state_block
from agent_core.storage._records import ContextEdit, NewMessage, StoredMessage
from agent_core.strategies._cutoff import safe_cutoff
from agent_core.strategies._masking import mask_candidates, placeholder
from agent_core.strategies._pipeline import projected_after_compaction

__all__ = ["COMPACTION_DISCARDED", "Edits"]

log = logging.getLogger(__name__)

#: ``meta["event"]`` of the marker of a compaction whose summary was not smaller.
COMPACTION_DISCARDED = "compaction_discarded"


class Edits(OpenSession):
    """Masks, compacts and compresses finished todos in the open session."""

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
            summary += todo_state_block(self.todos.todos, self._task(messages)[:500])
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
    async def write_todo_summaries(self) -> tuple[dict[str, str], list[StoredMessage] | None]:
        """The model's summary of each todo that just closed (by key), written through the
        handoff writer over the todo's span; none for a todo it could not sum up. With them,
        the session's rows they were written from (None when none were read), which
        :meth:`compress_finished_todos` takes instead of reading them again: the turn holds
        the thread, so no model input was stored meanwhile."""
        model = self.setup.handoff_model or self.setup.model
        closed = list(self.todos.closed)
        if model is None or not closed:
            return {}, None
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
        return written, rows

    def compress_finished_todos(
        self,
        written: Mapping[str, str] | None = None,
        rows: Sequence[StoredMessage] | None = None,
    ) -> list[BaseMessage] | None:
        """Replace each todo that just closed by its summary where that is smaller: the
        model's (``written``), else one built from the span's evidence. ``rows``: the
        session's rows as :meth:`write_todo_summaries` read them (else read here)."""
        closed = self.todos.take_closed()
        if not closed:
            return None
        rows = list(rows) if rows is not None else self.store.messages(self.session.id)
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
