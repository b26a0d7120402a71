"""A context reset: the session ends with a handoff and the next one opens from it."""

from __future__ import annotations

import asyncio
import fnmatch
import logging
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import BaseMessage

from agent_core import events
from agent_core.context._build import context_kind, to_langchain
from agent_core.context._compaction import call_usage
from agent_core.errors import HandoffCancelled, HandoffGenerationError
from agent_core.handoff._artifact import HandoffArtifact, handoff_context_message, handoff_filename
from agent_core.handoff._facts import extract_facts
from agent_core.handoff._generation import generate_handoff
from agent_core.handoff._inventory import take_inventory
from agent_core.history._notes import MAX_LISTED_SESSIONS, history_note
from agent_core.redaction import known_secrets, redact_text
from agent_core.runtime._open_session import OpenSession, todo_state_block
from agent_core.runtime._pinned import pinned_context
from agent_core.runtime._user_control import review_opening, reviewed_artifact
from agent_core.storage._records import QUEUED, NewMessage, StoredMessage

__all__ = ["CARRIED_OVER", "Resets", "unanswered_requests"]

log = logging.getLogger(__name__)


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


def unanswered_requests(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The user's messages after the model's last answer, oldest first."""
    tail: list[BaseMessage] = []
    for message in reversed(messages):
        if message.type == "ai":
            break
        if message.type == "human" and context_kind(message) is None:
            tail.append(message)
    return tail[::-1]


class Resets(OpenSession):
    """Ends the session with a handoff and opens the next one."""

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
            opening += todo_state_block(self.todos.todos, str(task)[:500])
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

    def _history_note(self) -> str:
        if not self.history_tools:
            return ""
        sessions = self.store.sessions(self.setup.thread_id)
        listed = sessions[-MAX_LISTED_SESSIONS:]
        return history_note(sessions, {s.id: self.store.messages(s.id) for s in listed})
