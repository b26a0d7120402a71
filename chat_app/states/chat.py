"""The chat page: a window of the timeline, the live stream, the chip bar and the meter,
and the composer.

Thin by design: events go to ``chat_app.services``; what comes back is reshaped into rows
(``chat_app.states.rows``) and held for rendering. How a run's events reach the page (this
tab's streams, other tabs' runs on the live channel) is the ``RunFollowing`` half
(``chat_app.states.chat_runs``).
"""

from __future__ import annotations

import dataclasses
import json

import reflex as rx

from chat_app.root import root
from chat_app.services.conversation import runs as run_service
from chat_app.services.conversation import threads as thread_service
from chat_app.services.presentation.timeline import earlier_reply_marks
from chat_app.services.presentation.views import TimelineItem, TimelineView
from chat_app.services.runtime.send_order import predecessor_prefix
from chat_app.states import marker_rows, reading_scripts, scripts
from chat_app.states.chat_runs import FLUSH_SECONDS, RunFollowing, handoff_cancels
from chat_app.states.composer_text import composer_placeholder
from chat_app.states.identity import IdentityState
from chat_app.states.live_pages import LivePages
from chat_app.states.rows import (
    ChipRow,
    MeterBar,
    TimelineRow,
    anchors_for_tail,
    chip_row,
    meter_bar,
    plain_rows,
    timeline_row,
    unwrapped,
    upsert,
    with_anchors,
    with_new_session,
)
from chat_app.states.stream_pieces import StreamPieces
from chat_app.states.timeline_window import MAX_ROWS, WINDOW, TimelineWindow

__all__ = ["ChatState", "WINDOW", "FLUSH_SECONDS"]

# A chat opens with its newest rows up to this many bytes (as sent), so the page load stays
# small on a thread of rich rows (Markdown, long tool outputs): a window of plain rows is
# whole, one of rich rows about half of it; earlier rows load as the reader scrolls up.
OPEN_BYTES = 45_000
OPEN_MIN_ROWS = 20
UNSTORED_KEPT = 8  # a tab's commands remembered: only the latest one's successor asks


def _restore_composer(text: str) -> rx.event.EventSpec:
    """Put a refused text back into the (uncontrolled) composer."""
    return rx.set_value("composer-input", text)


def _open_window(rows: list[TimelineRow]) -> list[TimelineRow]:
    """The newest of ``rows`` whose JSON fits in ``OPEN_BYTES`` (at least ``OPEN_MIN_ROWS``)."""
    total, kept = 0, 0
    for row in reversed(rows):
        total += len(json.dumps(dataclasses.asdict(row), separators=(",", ":"), default=str))
        if total > OPEN_BYTES and kept >= OPEN_MIN_ROWS:
            break
        kept += 1
    return rows[len(rows) - kept :]


def _thread_id_from_path(path: str) -> str:
    parts = [part for part in path.split("/") if part]
    return parts[-1] if len(parts) >= 2 and parts[-2] == "t" else ""


class ChatState(TimelineWindow, RunFollowing, LivePages, StreamPieces, IdentityState):
    thread_key: str = ""
    found: bool = True
    loading: bool = True
    title: str = ""
    model_label: str = ""
    # Why the chat's assistant cannot run (a bad model setting); shown above the composer.
    problem: str = ""
    # The timeline is rows + the live pages (states/live_pages.py). A running stream only
    # ever writes live pages, so a finished item costs the browser one small page, not the
    # window nor the run (Reflex sends a changed var whole).
    rows: list[TimelineRow] = []
    chips: list[ChipRow] = []
    meter: MeterBar = MeterBar()
    has_earlier: bool = False
    earliest_seq: int = 0
    # The window ends before the newest rows (after a jump to an earlier session).
    has_later: bool = False
    undo_target: marker_rows.UndoTarget = marker_rows.UndoTarget()
    # The timeline ends with a reply (notes aside): only a reply can be regenerated, not a
    # handoff card or a tool call left without its answer.
    ends_with_reply: bool = False
    _last_seq: int = 0  # with has_later: the last stored row the window holds
    sending: bool = False
    resetting: bool = False
    handoff_running: bool = False
    notice: str = ""
    draft: str = ""
    # This tab's latest sends that were settled without a message (a command, a command
    # refused): the send after one must not wait for it to be stored (it never is).
    _unstored: list[str] = []

    # ----- view helpers -------------------------------------------------------------------

    @rx.var
    def command_hint(self) -> str:
        if not self.draft.startswith("/"):
            return ""
        return "/handoff [focus] — write a handoff now and continue in a fresh session"

    @rx.var
    def activity(self) -> str:
        """idle | sending | resetting | handoff: what the thread is doing, for the composer."""
        if self.handoff_running:
            return "handoff"
        if self.resetting:
            return "resetting"
        return "sending" if self.sending else "idle"

    @rx.var
    def composer_placeholder(self) -> str:
        return composer_placeholder(self.activity)

    def _refresh_undo(self) -> None:
        """Point ``undo_target`` at the marker that offers Undo (the newest edit of the newest
        session shown). A plain var set only when it changes: a computed one would be sent
        again with every step of a turn."""
        shown = [*unwrapped(self.rows), *self._live_rows()]
        target = marker_rows.UndoTarget() if self.has_later else marker_rows.undo_target(shown)
        if target != self.undo_target:
            self.undo_target = target
        last = next((row for row in reversed(shown) if row.kind != "marker"), None)
        ends_with_reply = last is not None and last.kind == "message" and last.role == "assistant"
        if ends_with_reply != self.ends_with_reply:
            self.ends_with_reply = ends_with_reply

    def _set_rows(self, rows: list[TimelineRow]) -> None:
        """Replace the whole timeline (page loads, earlier windows, settling a stream)."""
        # Plain copies: anchoring the state's own rows in place would send them all again.
        rows, chips = with_anchors(
            plain_rows(rows), self._chips_copy(), from_start=not self.has_earlier
        )
        if rows != unwrapped(self.rows):
            self.rows = rows
        self._set_chips(chips)
        if self._live and not self.has_later:
            self._clear_live()
        if self.rows:
            self.earliest_seq = (
                min(row.seq for row in self.rows if not row.resetting)
                if any(not row.resetting for row in self.rows)
                else self.earliest_seq
            )
        self._refresh_undo()

    def _chips_copy(self) -> list[ChipRow]:
        # Plain copies: changing the state's own chips in place would send them all again.
        return [dataclasses.replace(chip) for chip in self.chips]

    def _set_chips(self, chips: list[ChipRow]) -> None:
        """Send the chip bar only when it changed (a step of a turn rarely changes it)."""
        if chips != list(self.chips):
            self.chips = chips

    def _show(self, view: TimelineView) -> None:
        self.found = True
        self.title = view.thread.title
        self.model_label = view.model_label
        self.problem = view.problem
        self.chips = [chip_row(chip) for chip in view.sessions]
        self.meter = meter_bar(view.meter)
        self.has_earlier = view.has_earlier
        self.has_later = False
        self._set_rows([timeline_row(item) for item in view.items])

    def _set_live(self, live: list[TimelineRow]) -> None:
        """Replace this run's rows, anchoring them after the settled rows (left untouched)."""
        settled = unwrapped(self.rows)
        live, chips = anchors_for_tail(
            plain_rows(live),
            self._chips_copy(),
            seen_sessions={row.session_number for row in settled if row.anchor},
            loaded_anchors={row.anchor for row in settled if row.anchor},
            from_start=not self.has_earlier and not settled,
        )
        hidden = self._show_live(live, copied=True)
        if hidden:
            # The run outgrew its pages: the rows above them leave the page too (scrolling
            # up loads them again), so the page stays bounded without re-sending anything.
            if self.rows:
                self.rows = []
            if not self.has_earlier:
                self.has_earlier = True
            shown = [row.seq for row in live[hidden:] if row.seq and not row.resetting]
            earliest = min(shown, default=self.earliest_seq)
            if earliest != self.earliest_seq:
                self.earliest_seq = earliest
            visible = {row.anchor for row in live[hidden:] if row.anchor}
            for chip in chips:
                chip.loaded = chip.anchor in visible
        self._set_chips(chips)
        self._refresh_undo()

    def _append(self, *items: TimelineItem) -> None:
        """A run's new rows, in order; the live pages are laid out once for all of them (a
        step's reply and tool results arrive together, and each layout re-reads the page)."""
        live: list[TimelineRow] | None = None
        for item in items:
            row = timeline_row(item)
            if row.kind == "message" and row.role == "assistant":
                self._stream_clear()
            settled = unwrapped(self.rows)
            if any(existing.key == row.key for existing in settled):
                if live is not None:
                    self._set_live(live)
                    live = None
                self._set_rows(upsert([*settled, *self._live_rows()], row))
                continue
            live = upsert(unwrapped(self._live) if live is None else live, row)
        if live is not None:
            self._set_live(live)

    # ----- page lifecycle -----------------------------------------------------------------

    @rx.event
    async def on_load(self):
        thread_id = _thread_id_from_path(self.router.url.path)
        self.thread_key = ""
        self.loading = True
        self.rows, self.chips, self.notice, self.draft = [], [], "", ""
        self._stream_clear()
        self._clear_live()
        self.resetting = self.handoff_running = self.remote_running = False
        # A run this tab started before a reload goes on streaming into this state.
        self.sending = self._streams > 0
        view = thread_service.load_timeline(root(), self._owner(), thread_id) if thread_id else None
        self.loading = False
        if view is None:
            self.found = False
            return None
        # Only an owner's page holds the thread id: every later event acts on thread_key.
        self.thread_key = thread_id
        self._show(view)
        shown = [unwrapped(row) for row in unwrapped(self.rows)]
        opened = _open_window(shown)
        if len(opened) < len(shown):
            self.has_earlier = True
            self._set_rows(opened)
        self.remote_running = await root().live.is_running(thread_id)
        self.sending = self.sending or self.remote_running
        loaded = [
            scripts.scroll_to_bottom(force=True),
            scripts.escape_stops(),
            reading_scripts.auto_load(),
            reading_scripts.mark_session_in_view(),
            scripts.outbox_unsent(thread_id, ChatState.resend_unsent),
            ChatState.watch_thread(thread_id),
        ]
        if (view.pending or view.awaiting_reply) and not self.remote_running:
            # Queued messages (a new chat's first one, or ones a crash left), or one delivered
            # that no turn took: answered now, by a run no page owns, which this tab follows
            # like another tab's run.
            run_service.resume_detached(root(), self._owner(), thread_id)
            self.sending = self.remote_running = True
        return loaded

    def _mark_replaced(self, replies: list[list[int]], *, exactly: bool) -> None:
        """Dim the replies the model no longer sees, each as a whole (``exactly``: only
        these; else these too), the shown and live rows read as one timeline."""
        settled, live = unwrapped(self.rows), unwrapped(self._live)
        rows = [*settled, *live]
        marked = [
            dataclasses.replace(
                row,
                replaced=dimmed or (row.replaced and not exactly),
                reply_end=end or (row.reply_end and not exactly),
            )
            for row, (dimmed, end) in zip(rows, earlier_reply_marks(rows, replies), strict=True)
        ]
        self.rows = marked[: len(settled)]
        self._show_live(marked[len(settled) :])
        self._refresh_undo()

    @rx.event
    def show_replaced(self, replies: list[list[int]]) -> None:
        """After a reply was chosen: exactly these are the earlier replies now."""
        self._mark_replaced([[int(seq) for seq in reply] for reply in replies], exactly=True)

    @rx.event
    def regenerate(self):
        """Answer the last message again; the earlier reply is kept, dimmed, and can be
        chosen again (``chat_app.services.conversation.runs.replies``)."""
        if self.sending or self.handoff_running or not self.thread_key:
            return rx.toast("Wait for the current turn to finish (or stop it) first.")
        self.sending = True
        return ChatState.run_regenerate(self.thread_key)

    # ----- composer -----------------------------------------------------------------------

    @rx.event
    def set_draft(self, value: str) -> None:
        self.draft = value
        if self.notice and not self.sending:
            self.notice = ""

    @rx.event
    def submit(self, form: dict):
        """Send the composer's text, or run ``/handoff [focus]``.

        The text stays in the composer until the server has stored it (``accepted``, which
        empties it); the browser's outbox (/baton-outbox.js) keeps a copy under the
        message's ``client_id`` and sends it again if no acknowledgement came. A message
        sent while a turn runs (or a reset) is queued by the thread and delivered after it.
        A refused text stays in the composer to be fixed.
        """
        typed = str(form.get("message") or "")
        client_id = str(form.get("client_id") or "")[:64]
        text = typed.strip()
        if not text:
            return scripts.outbox_refused(client_id)
        self.draft = ""
        command = run_service.parse_command(typed.lstrip("\n"))
        if command is not None:
            self._settled_unstored(client_id)
        if command is not None and command[0] == "unknown":
            # Said by the composer, where the eyes are (a toast in the corner was missed);
            # it goes with the next keystroke.
            self.notice = (
                f"/{command[1]} is not a command. Commands: {run_service.COMMANDS}. "
                "To send this as a message, start it with a space."
            )
            return [scripts.outbox_refused(client_id), _restore_composer(typed)]
        if command is not None:
            if self.sending or self.handoff_running:
                return [
                    scripts.outbox_refused(client_id),
                    _restore_composer(typed),
                    rx.toast("Wait for the current turn to finish (or stop it) first."),
                ]
            self.handoff_running = True
            _, focus = command
            return [
                scripts.outbox_accepted(client_id),
                ChatState.run_handoff(self.thread_key, focus),
            ]
        # During a handoff (this tab's or another's) a message is queued like during any
        # run: the handoff's commit delivers it into the new session, where it is answered.
        # The send checks it (once, in services.conversation.runs.chat): a refusal names its
        # client_id, and the text, still in the composer, stays there to be fixed.
        self.sending = True
        return [
            ChatState.run_send(self.thread_key, text, client_id, self._after_unstored(client_id)),
            scripts.scroll_to_bottom(force=True),
        ]

    def _settled_unstored(self, client_id: str) -> None:
        if client_id:
            self._unstored = [*self._unstored[-(UNSTORED_KEPT - 1) :], client_id]

    def _after_unstored(self, client_id: str) -> bool:
        """Whether the tab's send before ``client_id`` was settled without a message."""
        before = predecessor_prefix(client_id)
        return before is not None and any(sent.startswith(before) for sent in self._unstored)

    @rx.event
    def retry_unsent(self):
        """The outbox saw no acknowledgement in time (a send lost in flight): send again."""
        if not self.thread_key:
            return None
        return scripts.outbox_unsent(self.thread_key, ChatState.resend_unsent)

    @rx.event
    def resend_unsent(self, unsent: list):
        """Send again what this chat's outbox still holds (no acknowledgement ever came)."""
        if not self.thread_key or not isinstance(unsent, list):
            return None
        sends, resent = [], 0
        for entry in unsent[:50]:
            if not isinstance(entry, dict) or entry.get("thread") != self.thread_key:
                continue
            client_id, text = str(entry.get("id") or "")[:64], str(entry.get("text") or "")
            if not client_id:
                continue
            # Only what submit would have sent: a command is never re-sent (a refused text
            # is refused again by the send, which names its client_id).
            if not text.strip() or run_service.parse_command(text.lstrip("\n")) is not None:
                self._settled_unstored(client_id)
                sends.append(scripts.outbox_refused(client_id))
                continue
            sends.append(
                ChatState.run_send(
                    self.thread_key, text, client_id, self._after_unstored(client_id)
                )
            )
            resent += 1
        if resent:
            self.sending = True
        return sends or None

    @rx.event
    def stop(self) -> None:
        if (
            not self.thread_key
            or thread_service.owned_thread(root(), self._owner(), self.thread_key) is None
        ):
            return
        cancel = handoff_cancels.get(self.thread_key)
        if cancel is not None:
            cancel.set()
        run_service.stop(root(), self.thread_key)

    def _reconcile(self) -> None:
        """Read back what the thread stored after the settled rows and show exactly that:
        a watcher that subscribed late or lost an event still ends the run right."""
        rows = [row for row in self.rows if not row.resetting]
        live = [row for row in self._live if not row.resetting and not row.queued]
        last = max((row.seq for row in [*rows, *live]), default=0)
        view = thread_service.load_window_at(
            root(), self._owner(), self.thread_key, after_seq=last, limit=MAX_ROWS
        )
        if view is None:
            return
        if view.has_later:  # more happened than a window holds: show the newest rows
            newest = thread_service.load_timeline(root(), self._owner(), self.thread_key)
            if newest is not None:
                self._show(newest)
            return
        fresh = [timeline_row(item) for item in view.items]
        in_rows, in_live = {row.key for row in rows}, {row.key for row in live}
        for row in fresh:  # a tool call shown before its result came
            if row.key in in_rows:
                rows = upsert(rows, row)
            elif row.key in in_live:
                live = upsert(live, row)
        tail = [row for row in fresh if row.key not in in_rows | in_live]
        stored = {row.key for row in tail}
        waiting = [row for row in self._live if row.queued and row.key not in stored]
        chips = list(self.chips)
        for row in tail:  # a reset whose live event was missed still gets its chip
            if row.kind == "divider" and all(c.number != row.session_number for c in chips):
                chips = with_new_session(
                    chips,
                    ChipRow(
                        number=row.session_number,
                        label=f"Session {row.session_number}",
                        anchor=f"session-{row.session_number}",
                    ),
                )
        self._set_chips(chips)
        if rows != list(self.rows):
            self._set_rows([*rows, *live])
            live = []
        self._set_live(live + tail + waiting)
