"""The warn notice and the handoff review of the open chat.

What it shows is read from the store (``services.conversation.runs.reset_control.reset_status``) when the page loads
and again after each run event of the thread's live channel, so every tab and a reload show
the same. The actions go through the same services as the composer: "Hand off now" is
``/handoff``, the others run as relayed runs every tab follows.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from concurrent.futures import ThreadPoolExecutor

import reflex as rx

from agent_core import StoreError
from agent_core.events import ContextResetEvent, DoneEvent
from chat_app.root import root
from chat_app.services.conversation import runs as run_service
from chat_app.services.presentation.ui_events import (
    ItemShown,
    MarkerShown,
    Resync,
    RunChanged,
    UiEvent,
)
from chat_app.services.runtime import live
from chat_app.states.chat import ChatState
from chat_app.states.chat_runs import HANDOFF_TOAST
from chat_app.states.connection import connected_here
from chat_app.states.identity import IdentityState

__all__ = ["ResetControlState", "REVIEW_FIELDS"]

_log = logging.getLogger(__name__)

CHECK_SECONDS = 10.0
#: The status is read at most this often while a thread's run events keep coming.
REFRESH_SECONDS = 2.0


@functools.cache
def _status_reader() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="reset-status")


class StatusChanges:
    """Which live events may change what the status says (the deferral, the review, the
    thresholds): a marker, a divider, a reset or compaction, the end of a run. Replies and
    utilization never do: the notice follows the meter, which every tab updates itself.

    ``review_settled``: a review's settling marker (a ``handoff_review`` marker with the
    position of its context edit; the pending one has none) was seen, so the form can
    leave at once, before the status is read again and before the answer's turn shows."""

    def __init__(self) -> None:
        self.review_settled = False

    def __call__(self, event: UiEvent) -> bool:
        match event:
            case ItemShown(item=item):
                if item.marker_event == "handoff_review" and item.edit is not None:
                    self.review_settled = True
                return item.kind in ("marker", "divider")
            case RunChanged() | DoneEvent() | ContextResetEvent() | Resync():
                return True
            case MarkerShown(type="compaction" | "masking"):
                return True
        return False


def _shows_at_once(event: UiEvent) -> bool:
    """A run's end, or a marker or divider (a review settled, a deferral, a reset): what the
    tab shows must follow at once, not after the throttle. A review form left standing
    into the answer's turn went away mid-turn and the page jumped with it."""
    match event:
        case ItemShown(item=item):
            return item.kind in ("marker", "divider")
        case DoneEvent() | RunChanged(running=False):
            return True
    return False


#: The review form's fields, in order: (field, label, kind) with kind "text" or "lines".
REVIEW_FIELDS = [
    ("goal", "Goal", "text"),
    ("constraints", "Constraints (one per line)", "lines"),
    ("user_messages", "User messages (one per line)", "lines"),
    ("completed_work", "Completed work", "lines"),
    ("in_progress", "In progress", "lines"),
    ("next_step", "Next step", "text"),
    ("remaining_tasks", "Remaining tasks", "lines"),
    ("key_decisions", "Key decisions", "lines"),
    ("errors_and_fixes", "Errors and fixes", "lines"),
    ("files_read", "Files read", "lines"),
    ("current_state_summary", "State summary", "text"),
]


def _thread_id(path: str) -> str:
    parts = [part for part in path.split("/") if part]
    return parts[-1] if len(parts) >= 2 and parts[-2] == "t" else ""


def _form_values(artifact: dict) -> dict[str, str]:
    values: dict[str, str] = {}
    for name, _, kind in REVIEW_FIELDS:
        value = artifact.get(name)
        values[name] = "\n".join(map(str, value or [])) if kind == "lines" else str(value or "")
    return values


class ResetControlState(IdentityState):
    thread_key: str = ""
    warn_percent: int = 0  # 0: unknown (no notice)
    trigger_percent: int = 0
    next_turn_percent: int = 0  # where the next turn will likely take the context
    compactable: bool = False  # "Compact now" would find something to summarize
    action: str = "reset"
    deferred: bool = False  # "Not yet" is armed: the next automatic step is skipped once
    acting: bool = False
    review_session: int = 0  # 0: nothing waits for review
    review_values: dict[str, str] = {}
    review_files: list[str] = []
    review_error: str = ""
    _generation: int = 0

    def _refresh(self) -> None:
        if self.thread_key:
            self._show(run_service.reset_status(root(), self._owner(), self.thread_key))

    def _show(self, found: run_service.ResetStatus) -> None:
        self.deferred = found.deferred
        self.warn_percent = round(found.warn * 100)
        self.trigger_percent = round(found.trigger * 100)
        self.next_turn_percent = round(found.next_turn * 100)
        self.compactable = found.compactable
        self.action = found.action
        if found.review_session != self.review_session:
            self.review_error = ""
        self.review_session = found.review_session
        artifact = found.review or {}
        self.review_values = _form_values(artifact)
        self.review_files = [
            f"{f.get('path', '')}: {f.get('change', '')}".rstrip(": ")
            for f in artifact.get("files_modified", [])
            if isinstance(f, dict)
        ]

    @rx.event
    def on_load(self):
        self.thread_key = _thread_id(self.router.url.path)
        self.warn_percent = self.review_session = 0
        self.acting = self.deferred = False
        if not self.thread_key:
            return None
        self._refresh()
        return ResetControlState.watch(self.thread_key)

    @rx.event(background=True)
    async def watch(self, thread_id: str):
        """Re-read the status after the thread's run events (any tab's, any worker's)."""
        async with self:
            if self.thread_key != thread_id:
                return
            self._generation += 1
            generation = self._generation
            token = self.router.session.client_token
            owner = self._owner()
            changes = StatusChanges()
        async with root().live.watch(thread_id) as queue:
            async for due in live.settled(
                queue, changes, every=REFRESH_SECONDS, idle=CHECK_SECONDS, urgent=_shows_at_once
            ):
                if due:
                    if changes.review_settled:
                        changes.review_settled = False
                        async with self:
                            if self.thread_key != thread_id or self._generation != generation:
                                return
                            self.review_session = 0  # gone before the answer's turn shows
                    if not await self._reread(owner, thread_id, generation):
                        return
                    continue
                if not connected_here(token):
                    return
                async with self:
                    if self.thread_key != thread_id or self._generation != generation:
                        return  # the page moved on, or loaded again with its own watcher

    async def _reread(self, owner: str | None, thread_id: str, generation: int) -> bool:
        """Read the status and show it; False when the page has moved on. Off the event
        loop, outside the state's lock, and one read at a time per process: every tab of
        every running chat asks after its replies, and reads side by side starved the
        turns' own writes of the GIL."""
        try:
            found = await asyncio.get_running_loop().run_in_executor(
                _status_reader(), run_service.reset_status, root(), owner, thread_id
            )
        except StoreError:  # the database is away: the notice stays as it is
            _log.warning("could not read the reset status of thread %s", thread_id)
            return True
        async with self:
            if self.thread_key != thread_id or self._generation != generation:
                return False
            self._show(found)
        return True

    # ----- the notice's actions ----------------------------------------------------------

    @rx.event
    async def hand_off_now(self):
        chat = await self.get_state(ChatState)
        if chat.handoff_running or chat.resetting:
            return rx.toast("A handoff is already under way.")
        if chat.sending:  # a turn runs: it hands off at its next step
            return ResetControlState.hand_off_at_next_step
        chat.handoff_running = True  # the notice hides while the handoff runs
        return ChatState.run_handoff(self.thread_key, None)

    @rx.event(background=True)
    async def hand_off_at_next_step(self):
        async with self:
            thread_id, owner = self.thread_key, self._owner()
        requested = await run_service.hand_off_next_step(root(), owner, thread_id)
        yield rx.toast(
            "The agent hands off at its next step."
            if requested
            else "A handoff is already asked for: it comes at the agent's next step."
        )

    @rx.event(background=True)
    async def compact_now(self):
        async with self:
            if self.acting:
                return
            self.acting, thread_id, owner = True, self.thread_key, self._owner()
        try:
            message = await run_service.compact_now(root(), owner, thread_id)
        finally:
            async with self:
                self.acting = False
                self._refresh()
        yield rx.toast(message)

    @rx.event(background=True)
    async def not_yet(self):
        async with self:
            thread_id, owner = self.thread_key, self._owner()
            self.deferred = True
        deferred = await run_service.defer_reset(root(), owner, thread_id)
        async with self:
            self._refresh()
        if not deferred:
            yield rx.toast("The next automatic step is already deferred.")

    # ----- the review ----------------------------------------------------------------------

    @rx.event(background=True)
    async def confirm_review(self, form: dict):
        async for update in self._settle(form, discard=False):
            yield update

    @rx.event(background=True)
    async def discard_review(self):
        async for update in self._settle(None, discard=True):
            yield update

    async def _settle(self, form: dict | None, *, discard: bool):
        async with self:
            if self.acting:
                return
            self.acting, thread_id, owner = True, self.thread_key, self._owner()
            self.review_error = ""
        try:
            note = await run_service.settle_review(root(), owner, thread_id, form, discard=discard)
        except run_service.ReviewRefused as refused:
            async with self:
                self.acting = False
                self.review_error = str(refused)
                self._refresh()
            return
        except BaseException:
            async with self:
                self.acting = False
            raise
        async with self:
            # The form leaves this page before the answer's turn starts: gone mid-turn, it
            # took its height with it while the reply streamed and the page slid back.
            self.acting = False
            self.review_session = 0
        run_service.answer_after_review(root(), owner, thread_id)
        async with self:
            self._refresh()
        if note:
            # The handoff's own toast, replaced: its "Session n started with the handoff" comes
            # with the confirmation and said the same thing again.
            yield rx.toast(note, id=HANDOFF_TOAST)
