"""How a run reaches the chat page: the runs this tab starts (a send, a regenerate, a
``/handoff``), each read from its service stream, and the runs other tabs or workers start,
followed on the thread's live channel; and what each of their events does to the page.

A mixin of ``ChatState`` (chat_app.states.chat), which holds what the page shows and how
rows are laid out (``_append``, ``_set_live``, ``_show``, ``_reconcile``, ``_mark_replaced``);
this half only turns events into those calls. Streaming follows DESIGN.md §3: tokens go to a
separate string flushed about every 80 ms, a finished item is appended once.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import AsyncIterator, Iterable
from typing import TYPE_CHECKING, Any

import reflex as rx

from agent_core.events import (
    AcceptedEvent,
    HandoffEvent,
    InputBlocked,
    ResetFailed,
    ResetStarting,
    TokenEvent,
    WarningEvent,
)
from chat_app.root import root
from chat_app.services.conversation import runs as run_service
from chat_app.services.conversation import threads as thread_service
from chat_app.services.conversation.runs import in_batches
from chat_app.services.presentation.failures import describe_failure
from chat_app.services.presentation.ui_events import (
    ItemShown,
    MarkerShown,
    MeterShown,
    QueuedShown,
    Refused,
    Resync,
    RowsReplaced,
    RunChanged,
    SessionOpened,
    TitleChanged,
    UiEvent,
)
from chat_app.services.presentation.views import TimelineItem, TimelineView
from chat_app.services.runtime import live
from chat_app.states import live_outage, scripts
from chat_app.states.connection import connected_here
from chat_app.states.paste_offer_state import PasteOfferState
from chat_app.states.rows import (
    TimelineRow,
    chip_row,
    meter_bar,
    resetting_row,
    timeline_row,
    unwrapped,
    upsert,
    with_new_session,
)

__all__ = ["RunFollowing", "FLUSH_SECONDS"]

_log = logging.getLogger(__name__)

FLUSH_SECONDS = 0.08  # how often streamed tokens reach the browser
WATCH_CHECK_SECONDS = 10.0  # how often an idle watcher checks its tab is still here
OWN_RUNS_KEPT = 20
HANDOFF_TOAST = "handoff"  # the id of the toast a /handoff's phases share

# A running /handoff is cancelled through an asyncio.Event, which cannot live in a
# serializable state; it lives here, keyed by thread, in the worker running the handoff.
handoff_cancels: dict[str, asyncio.Event] = {}


def _part(event: UiEvent) -> str:
    """How :meth:`RunFollowing._consume` takes an event: streamed text, a new row, or else."""
    match event:
        case TokenEvent():
            return "token"
        case ItemShown() | QueuedShown():
            return "rows"
        case _:
            return "event"


def _text(events: Iterable[UiEvent]) -> str:
    return "".join(event.text for event in events if isinstance(event, TokenEvent))


class RunFollowing(rx.State, mixin=True):
    """The page's runs: its own streams and the thread's live channel (see the module)."""

    # A run of this thread started elsewhere (another tab or worker, or before a reload).
    remote_running: bool = False
    _streams: int = 0
    # Runs this tab started: their events arrive on its own stream, so the live channel's
    # copies are skipped.
    _own_runs: list[str] = []
    _watch_generation: int = 0

    if TYPE_CHECKING:  # what the rest of ChatState gives this half (see the module)
        thread_key: str
        has_later: bool
        _live: list[TimelineRow]

        def _owner(self) -> str: ...
        def _stream_add(self, text: str) -> None: ...
        def _stream_clear(self) -> None: ...
        def _show(self, view: TimelineView) -> None: ...
        def _set_live(self, live: list[TimelineRow]) -> None: ...
        def _append(self, *items: TimelineItem) -> None: ...
        def _mark_replaced(self, replies: list[list[int]], *, exactly: bool) -> None: ...
        def _reconcile(self) -> None: ...

    # The owner is read server-side inside each stream, never taken from the event payload,
    # so a crafted event cannot act for another browser; the services check it owns the thread.
    def _new_run(self) -> str:
        run_id = run_service.new_run_id()
        self._own_runs = [*self._own_runs[-(OWN_RUNS_KEPT - 1) :], run_id]
        return run_id

    @rx.event(background=True)
    async def run_send(
        self, thread_id: str, text: str, client_id: str = "", after_unstored: bool = False
    ):
        async with self:
            owner, run_id = self._owner(), self._new_run()
        stream = run_service.send_message(
            root(),
            owner,
            thread_id,
            text,
            client_id or None,
            run_id,
            after_unstored=after_unstored,
        )
        async for update in self._consume(stream):
            yield update

    @rx.event(background=True)
    async def run_regenerate(self, thread_id: str):
        async with self:
            owner, run_id = self._owner(), self._new_run()
        async for update in self._consume(run_service.regenerate(root(), owner, thread_id, run_id)):
            yield update

    @rx.event(background=True)
    async def run_handoff(self, thread_id: str, focus: str | None):
        async with self:
            owner, run_id = self._owner(), self._new_run()
        if thread_service.owned_thread(root(), owner, thread_id) is None:
            return
        cancel = asyncio.Event()
        handoff_cancels[thread_id] = cancel
        try:
            async for update in self._consume(
                run_service.run_handoff(root(), owner, thread_id, focus, cancel, run_id)
            ):
                yield update
        finally:
            handoff_cancels.pop(thread_id, None)
            async with self:
                self.handoff_running = False

    async def _consume(self, events: AsyncIterator[UiEvent]) -> AsyncIterator[Any]:
        """Apply one service stream to the state; yield the toasts and scrolls it asks for."""
        async with self:
            self._streams += 1
        pending = ""
        flushed_at = 0.0  # the first words go out at once, later ones in batches
        try:
            # The run goes on while a batch is shown (chat_app.services.conversation.runs.batches).
            async for batch in in_batches(events):
                if (
                    all(isinstance(event, TokenEvent) for event in batch)
                    and time.monotonic() - flushed_at < FLUSH_SECONDS
                ):
                    pending += _text(batch)
                    continue
                follow_ups = []
                async with self:
                    for part, group in itertools.groupby(batch, key=_part):
                        if part == "token":
                            pending += _text(group)
                            continue
                        if pending:
                            self._stream_add(pending)
                            pending = ""
                        if part == "rows":  # laid out together (ChatState._append)
                            self._append(
                                *(
                                    event.item
                                    for event in group
                                    if isinstance(event, ItemShown | QueuedShown)
                                )
                            )
                            follow_ups.append(scripts.scroll_to_bottom())
                        else:
                            follow_ups.extend(self._apply(event) for event in group)
                    if pending:
                        self._stream_add(pending)
                        pending, flushed_at = "", time.monotonic()
                for follow_up in follow_ups:
                    if follow_up is not None:
                        yield follow_up
        except Exception as error:  # the stream broke: say so instead of hanging "sending"
            # In plain words: the raw text may quote SQL, a URL, a key or what was typed.
            yield rx.toast.error(f"Something went wrong: {describe_failure(error)}")
        finally:
            async with self:
                self._streams -= 1
                ended = self._streams <= 0
                if ended:
                    # This run's rows stay in their pages: the end of a turn sends no
                    # window-sized frame, and the next run's rows follow them.
                    self._streams = 0
                    self.sending = self.remote_running
                    self.resetting = False
                    self._stream_clear()
                    self.notice = ""
                thread_id, owner = self.thread_key, self._owner()
            if ended and thread_id:
                await self._measure_after_run(owner, thread_id)

    async def _measure_after_run(self, owner: str | None, thread_id: str) -> None:
        """Show the meter a reload would show: the run's last utilization event measured
        before its last reply (a point lower), and a reset's new session starts lower."""
        meter = await asyncio.to_thread(thread_service.current_meter, root(), owner, thread_id)
        if meter is None:
            return
        async with self:
            if self.thread_key == thread_id and self._streams == 0:
                self.meter = meter_bar(meter)

    @rx.event(background=True)
    async def watch_thread(self, thread_id: str):
        """Follow the runs of this thread that other tabs or workers start (the live
        channel), while this tab shows the thread and stays connected to this worker."""
        async with self:
            if self.thread_key != thread_id:
                return
            self._watch_generation += 1
            generation = self._watch_generation
            token = self.router.session.client_token
            own = set(self._own_runs)
        tokens, flushed_at = "", time.monotonic()
        async with root().live.watch(thread_id) as queue:
            while True:
                try:
                    event = await asyncio.wait_for(queue.get(), WATCH_CHECK_SECONDS)
                except TimeoutError:
                    event = None
                said = None if event is None else event.event
                cut = isinstance(said, live.Paused)
                try:
                    if not cut and event is not None and event.run in own:
                        continue  # this tab's own run reaches it on the run's own stream
                    if not cut and (event is None or isinstance(said, TokenEvent)):
                        if isinstance(said, TokenEvent):
                            tokens += said.text
                            if time.monotonic() - flushed_at < FLUSH_SECONDS and queue.qsize():
                                continue
                        elif not connected_here(token):
                            return
                        running = await root().live.is_running(thread_id) if event is None else True
                        ended = False
                        async with self:
                            if self.thread_key != thread_id or self._watch_generation != generation:
                                return
                            own = set(self._own_runs)
                            if (
                                tokens
                                and self.remote_running
                                and (event is None or event.run not in own)
                            ):
                                self._stream_add(tokens)
                            tokens, flushed_at = "", time.monotonic()
                            if not running and self.remote_running:
                                ended = self._remote_run_ended()
                            owner = self._owner()
                        if ended:
                            await self._measure_after_run(owner, thread_id)
                        continue
                    if event is not None and said is not None and not isinstance(said, live.Paused):
                        async with self:
                            if self.thread_key != thread_id or self._watch_generation != generation:
                                return
                            own = set(self._own_runs)  # learns a run this tab started since
                            if event.run in own:
                                continue
                            if tokens:
                                self._stream_add(tokens)
                                tokens = ""
                            follow_up = self._apply(said)
                            ended = isinstance(said, RunChanged) and not said.running
                            ended = ended and self._streams == 0
                            owner = self._owner()
                        if follow_up is not None:
                            yield follow_up
                        if ended:
                            await self._measure_after_run(owner, thread_id)
                except Exception:  # the tab's state is out of reach: its Redis is cut
                    _log.warning("a chat tab's watcher cannot reach its state", exc_info=True)
                    cut = True
                if cut:  # the tab hears so at once and reads its thread again when it is back
                    tokens = ""
                    try:
                        async for notice in live_outage.ride_out(
                            queue, token, lambda: self._read_again(thread_id, generation)
                        ):
                            yield notice
                    except live_outage.TabGone:
                        return

    async def _read_again(self, thread_id: str, generation: int) -> bool:
        """After an outage, show the thread as stored; False when this watcher is not wanted."""
        async with self:
            if self.thread_key != thread_id or self._watch_generation != generation:
                return False
            self._apply(Resync())
        return True

    def _remote_run_ended(self) -> bool:
        """The run another tab or worker ran has ended; True when no run of this tab goes
        on, so the caller reads the meter (off the event loop, outside the state's lock:
        on the loop, every tab of every chat read its meter there at each run's end)."""
        self.remote_running = False
        if self._streams != 0:
            return False
        self.sending = self.resetting = False
        self.notice = ""
        self._stream_clear()
        if not self.has_later:
            self._reconcile()
        return True

    def _apply(self, event: UiEvent) -> Any:
        """One run event -> state change; returns a toast or scroll to run, if any. The
        run and resync events come from the live channel only (runs this tab did not
        start); a run's end is its stream's end."""
        match event:
            case RunChanged(running=True):
                self.remote_running = self.sending = True
            case RunChanged(running=False):
                self._remote_run_ended()
            case Resync():  # fell too far behind: read the thread again
                view = thread_service.load_timeline(root(), self._owner(), self.thread_key)
                if view is not None:
                    self._show(view)
            case ItemShown(item=item) | QueuedShown(item=item):
                self._append(item)
                return scripts.scroll_to_bottom()
            case MarkerShown(item=item):
                self._append(item)
            case RowsReplaced(seqs=seqs):
                self._mark_replaced([list(seqs)], exactly=False)
            case MeterShown(meter=meter):
                self.meter = meter_bar(meter)
            case TitleChanged(title=title) if title:
                self.title = title
            case ResetStarting(session_number=number):
                self.resetting = True
                self._stream_clear()
                self._set_live(upsert(unwrapped(self._live), resetting_row(number)))
                return scripts.scroll_to_bottom()
            case InputBlocked():
                # The divider says "Resetting context…" and the composer what happens to a
                # message sent now: a third line saying it again was noise.
                return None
            case SessionOpened(session_number=number, divider=divider, chip=chip):
                self.chips = with_new_session(self.chips, chip_row(chip))
                self._set_live(upsert(self._reset_ended(), timeline_row(divider)))
                if self.handoff_running:
                    return None  # the handoff's own "done" message says it
                # One id for every reset's toast: back-to-back resets replace it, not pile up.
                return rx.toast.success(
                    f"Session {number} started — context was reset", id="context-reset"
                )
            case ResetFailed(reason=reason, cancelled=cancelled):
                self._set_live(self._reset_ended())
                if cancelled:  # a /handoff stopped: its own toast says so, in one place
                    return None
                return rx.toast.error(f"Context reset failed: {reason or 'unknown error'}")
            case HandoffEvent(status=status, message=message):
                self.handoff_running = status == "started"
                if message:
                    # One toast for the handoff, its outcome replacing "Writing the handoff…".
                    toast = rx.toast.error if status == "failed" else rx.toast
                    return toast(message, id=HANDOFF_TOAST)
            case AcceptedEvent(client_id=client_id):
                # sent: an offer to attach an earlier, refused text is moot
                return [scripts.outbox_accepted(client_id), PasteOfferState.dismiss]
            case Refused(message=message, client_id=client_id, too_large=too_large):
                toast = (
                    PasteOfferState.offer(message, too_large.size_bytes)
                    if too_large is not None and too_large.size_bytes
                    else rx.toast.error(message or "Something went wrong")
                )
                return [scripts.outbox_refused(client_id), toast] if client_id else toast
            case WarningEvent(message=message) if message:
                return rx.toast.warning(message)
        return None

    def _reset_ended(self) -> list[TimelineRow]:
        """A reset completed or failed: input opens again; the run's rows without the
        reset's placeholder divider, to show."""
        self.resetting = False
        self.notice = ""
        return [row for row in self._live if not row.resetting]
