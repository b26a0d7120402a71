"""The chat's control over resets: the warn notice and its actions, and the review of a
handoff before the session it opens runs.

Everything the page shows is read back from the store (:func:`status`), so every tab and a
reload agree. Actions that change the timeline run as a relayed run (:meth:`LiveChannel.relay`):
every tab on the thread, the one that asked included, follows them on the live channel.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from agent_core import (
    ConfigurationError,
    ContextPolicy,
    Event,
    HandoffArtifact,
    StoreError,
    TurnSetup,
    model_info,
)
from agent_core.events import CompactEvent, MessageEvent
from agent_core.runtime import (
    defer_next_trigger,
    enter_turn_lock,
    pending_review,
    request_handoff,
    resolve_review,
    take_turn_lock,
)
from agent_core.strategies import (
    deferral_pending,
    effective_strategy,
    review_pending,
    trigger_threshold,
    warn_threshold,
)
from chat_app.db import repo
from chat_app.db.models import Assistant
from chat_app.errors import Refused
from chat_app.services.conversation.runs.chat import answer_waiting
from chat_app.services.conversation.runs.turn_growth import has_older_part, next_turn_peak
from chat_app.services.presentation.run_events import Translator
from chat_app.services.presentation.ui_events import UiEvent
from chat_app.services.runtime import runtime
from chat_app.services.runtime.backend import Backend
from chat_app.services.runtime.container import App
from chat_app.services.runtime.live import new_run_id

__all__ = [
    "ResetStatus",
    "ReviewRefused",
    "EDITABLE_TEXT",
    "EDITABLE_LISTS",
    "owned_setup",
    "reset_status",
    "defer_reset",
    "hand_off_next_step",
    "compact_now",
    "settle_review",
    "answer_after_review",
    "edited_artifact",
]

#: The artifact's fields the review form edits: free text, and one item per line.
EDITABLE_TEXT = ("goal", "next_step", "current_state_summary")
EDITABLE_LISTS = (
    "constraints",
    "user_messages",
    "completed_work",
    "in_progress",
    "remaining_tasks",
    "key_decisions",
    "errors_and_fixes",
    "files_read",
)


class ReviewRefused(Refused):
    """Why a review could not be settled, in words for the user."""

    default_code = "review_refused"


class ResetStatus(BaseModel):
    """What the chat shows about resets right now. The warn notice itself follows the meter
    (the open session's utilization, live in every tab): it shows while that is at or past
    ``warn`` and no review waits."""

    model_config = ConfigDict(extra="forbid")

    warn: float = 0.0
    trigger: float = 0.0
    action: Literal["reset", "compaction"] = "reset"
    deferred: bool = False  # "Not yet" was used and waits for the next automatic step
    review: dict[str, Any] | None = None  # the artifact waiting for review (JSON)
    review_session: int = 0
    # Where the next turn will likely take the context (0: no turn yet to tell from).
    next_turn: float = 0.0
    # A compaction would find an older part to summarize ("Compact now" is offered).
    compactable: bool = False


def owned_setup(app: Backend, owner: str | None, thread_id: str) -> TurnSetup | None:
    """The run setup of the owner's thread, or None (not theirs, or a broken assistant)."""
    found = _owned_run(app, owner, thread_id)
    return found[0] if found else None


def _owned_assistant(app: Backend, owner: str | None, thread_id: str) -> Assistant | None:
    with app.read() as db:
        return repo.thread_assistant(session=db, thread_id=thread_id, owner=owner)


def _owned_run(app: Backend, owner: str | None, thread_id: str) -> tuple[TurnSetup, str] | None:
    """The run setup and the model's label (the timeline's items carry it)."""
    assistant = _owned_assistant(app, owner, thread_id)
    if assistant is None:
        return None
    try:
        setup, resolved = runtime.turn_setup(app, thread_id, assistant)
    except ConfigurationError:  # the chat's banner says why
        return None
    return setup, resolved.label


def _model_default(model_name: str, policy: ContextPolicy) -> Literal["compact", "reset"]:
    return model_info(model_name, window_override=policy.window_override).default_strategy


def reset_status(app: Backend, owner: str | None, thread_id: str) -> ResetStatus:
    """Read after every reply of every tab's thread: the policy and one read of the open
    session's rows, never a run's setup (its tools cost more than the rest together)."""
    assistant = _owned_assistant(app, owner, thread_id)
    if assistant is None:
        return ResetStatus()
    try:
        policy, resolved = runtime.policy_for(app, assistant)
    except ConfigurationError:
        return ResetStatus()
    default = _model_default(resolved.name, policy)
    warn = warn_threshold(policy, default)
    store = app.store
    session = store.current_session(thread_id)
    rows = store.marks(session.id)
    with app.read() as db:
        turn_starts = repo.user_seqs(session=db, session_id=session.id)
    waiting = (
        HandoffArtifact.model_validate(session.handoff)
        if session.handoff is not None and review_pending(rows)
        else None
    )
    return ResetStatus(
        warn=warn,
        deferred=deferral_pending(rows),
        trigger=trigger_threshold(policy, default),
        action="reset" if effective_strategy(policy, default) == "reset" else "compaction",
        review=waiting.model_dump(mode="json") if waiting else None,
        review_session=session.number if waiting else 0,
        next_turn=next_turn_peak(rows, turn_starts) or 0.0,
        compactable=has_older_part(rows, policy.keep_recent_tokens),
    )


async def _publish_rows(app: App, thread_id: str, rows: list[Any]) -> None:
    """Show stored marker rows in every tab on the thread (markers carry no model label)."""
    translator = Translator(await asyncio.to_thread(app.store.sessions, thread_id), "")
    run_id = new_run_id()
    for row in rows:
        for event in translator.translate(MessageEvent.of(row)):
            await app.live.publish(thread_id, run_id, event)


async def defer_reset(app: App, owner: str | None, thread_id: str) -> bool:
    """ "Not yet"; False when a deferral already waits (or the chat is not the owner's)."""
    return await _store_marker(app, owner, thread_id, defer_next_trigger)


async def hand_off_next_step(app: App, owner: str | None, thread_id: str) -> bool:
    """ "Hand off now" while a turn runs: the turn hands off before its next model call, as
    ``/handoff`` would between turns. False when a request already waits (or the chat is
    not the owner's)."""
    return await _store_marker(app, owner, thread_id, request_handoff)


async def _store_marker(
    app: App,
    owner: str | None,
    thread_id: str,
    store_once: Callable[[Any, str], Any],
) -> bool:
    """Store the marker ``store_once(store, thread_id)`` makes (None: one already waits) and
    show it in every tab on the thread."""
    setup = owned_setup(app, owner, thread_id)
    if setup is None:
        return False
    marker = await asyncio.to_thread(store_once, setup.store, thread_id)
    if marker is None:
        return False
    await _publish_rows(app, thread_id, [marker])
    return True


async def _translated(
    app: Backend, setup: TurnSetup, label: str, events: AsyncIterator[Event]
) -> AsyncIterator[UiEvent]:
    translator = Translator(await asyncio.to_thread(app.store.sessions, setup.thread_id), label)
    async for event in events:
        for ui_event in translator.translate(event):
            yield ui_event


async def _relayed(
    app: App, setup: TurnSetup, label: str, events: AsyncIterator[Event]
) -> list[UiEvent]:
    """Run ``events`` as a run every tab follows; the events it produced, for the caller."""
    seen = []
    async for event in app.live.relay(
        setup.thread_id, new_run_id(), _translated(app, setup, label, events)
    ):
        seen.append(event)
    return seen


async def compact_now(app: App, owner: str | None, thread_id: str) -> str:
    """ "Compact now"; the message to show."""
    found = _owned_run(app, owner, thread_id)
    if found is None:
        return "This chat cannot run right now."
    setup, label = found
    try:
        seen = await _relayed(app, setup, label, app.runner.compact_now(setup))
    finally:
        answer_waiting(app, owner or "", thread_id)  # a message sent while it ran
    final = next((e for e in reversed(seen) if isinstance(e, CompactEvent)), None)
    return final.message if final else "Compaction finished"


def edited_artifact(original: dict[str, Any], form: dict[str, Any]) -> HandoffArtifact:
    """The artifact with the review form's fields applied (text as typed, lists one item per
    line, blank lines dropped); raises :class:`ReviewRefused` when the result is invalid."""
    update: dict[str, Any] = {}
    for name in EDITABLE_TEXT:
        if name in form:
            update[name] = str(form[name]).strip()
    for name in EDITABLE_LISTS:
        if name in form:
            update[name] = [line.strip() for line in str(form[name]).splitlines() if line.strip()]
    try:
        return HandoffArtifact.model_validate({**original, **update})
    except ValidationError as error:
        raise ReviewRefused(
            "; ".join(e["msg"] for e in error.errors()), code="invalid_handoff"
        ) from None


async def settle_review(
    app: App,
    owner: str | None,
    thread_id: str,
    form: dict[str, Any] | None,
    *,
    discard: bool = False,
) -> str:
    """Confirm (with the form's edits) or discard the waiting handoff; the note to show.
    The caller then lets the session answer what waits (:func:`answer_after_review`),
    once the form has left its page: the answer's turn must not see it go.

    A message sent during the review holds the thread only for the moment its run takes to
    queue it; the review is settled under the thread's turn lock, waiting for that moment
    rather than refusing, so two tabs settling at once settle it once."""
    found = _owned_run(app, owner, thread_id)
    if found is None:
        raise ReviewRefused("This chat cannot run right now.", code="cannot_run")
    setup = found[0]
    edited = None
    if not discard:
        waiting = await asyncio.to_thread(_waiting_review, setup)
        edited = edited_artifact(waiting.model_dump(mode="json"), form or {})
    lock = (await take_turn_lock(enter_turn_lock, setup)).lock
    try:
        marker = await asyncio.to_thread(
            resolve_review, setup.store, thread_id, edited=edited, discard=discard
        )
    except StoreError as error:
        raise ReviewRefused(str(error), code="store_failed") from None
    finally:
        await asyncio.to_thread(lock.__exit__, None, None, None)
    await _publish_rows(app, thread_id, [marker])
    return marker.content


def answer_after_review(app: App, owner: str | None, thread_id: str) -> None:
    """After :func:`settle_review`: answer the session's handed-over requests and any
    message queued meanwhile, in a run no page owns (:func:`answer_waiting`, the turn
    process's when there is one), which every tab follows on the live channel. Exactly
    once: a send still waiting for the turn lock finds its message answered, or answers
    it itself."""
    answer_waiting(app, owner or "", thread_id)


def _waiting_review(setup: TurnSetup) -> HandoffArtifact:
    waiting = pending_review(setup.store, setup.store.current_session(setup.thread_id))
    if waiting is None:
        raise ReviewRefused("No handoff waits for review in this chat.", code="nothing_to_review")
    return waiting
