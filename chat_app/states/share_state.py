"""State for the read-only `/share/<token>` page and for the owner's Share panel.

``SharedThreadState`` has no handler that writes anything: it only reads the snapshot the
token points at, re-resolving the token on every event. Rows are re-keyed by position so
no message id reaches the browser, and the thread id is never held at all.
"""

from __future__ import annotations

import dataclasses

import reflex as rx

from chat_app.root import root
from chat_app.services.conversation import threads as thread_service
from chat_app.services.presentation.views import TimelineItem
from chat_app.states.identity import IdentityState
from chat_app.states.rows import ChipRow, TimelineRow, chip_row, timeline_row, with_anchors

__all__ = ["SharedThreadState", "ShareLinksState", "LinkRow"]

WINDOW = 100


def _token_from_path(path: str) -> str:
    parts = [part for part in path.split("/") if part]
    return parts[-1] if len(parts) >= 2 and parts[-2] == "share" else ""


def _public_rows(items: list[TimelineItem]) -> list[TimelineRow]:
    """Rows with keys made from seq and position (message ids are internal)."""
    rows, per_seq = [], {}
    for item in items:
        row = timeline_row(item)
        n = per_seq[row.seq] = per_seq.get(row.seq, -1) + 1
        row.key = f"d{row.session_number}" if row.kind == "divider" else f"r{row.seq}.{n}"
        rows.append(row)
    return rows


class SharedThreadState(rx.State):
    found: bool = True
    loading: bool = True
    title: str = ""
    rows: list[TimelineRow] = []
    chips: list[ChipRow] = []
    has_earlier: bool = False
    earliest_seq: int = 0
    _token: str = ""

    def _set_rows(self, rows: list[TimelineRow]) -> None:
        self.rows, self.chips = with_anchors(rows, self.chips, from_start=not self.has_earlier)
        seqs = [row.seq for row in self.rows]
        self.earliest_seq = min(seqs) if seqs else 0

    @rx.event
    def on_load(self) -> None:
        self._token = _token_from_path(self.router.url.path)
        self.rows, self.chips, self.title = [], [], ""
        view = (
            thread_service.open_shared(root(), self._token, limit=WINDOW) if self._token else None
        )
        self.loading = False
        self.found = view is not None
        if view is None:
            return
        self.title = view.thread.title
        self.chips = [chip_row(chip) for chip in view.sessions]
        self.has_earlier = view.has_earlier
        self._set_rows(_public_rows(view.items))

    @rx.event
    def load_earlier(self) -> None:
        if not self.has_earlier:
            return
        view = thread_service.shared_earlier(root(), self._token, self.earliest_seq, limit=WINDOW)
        if view is None:
            self.found = False
            return
        self.has_earlier = view.has_earlier
        self._set_rows(_public_rows(view.items) + self.rows)

    @rx.event
    def jump_to_session(self, number: int):
        from chat_app.states import scripts

        chip = next((c for c in self.chips if c.number == number), None)
        if chip is None:
            return None
        if not chip.loaded:
            items = thread_service.shared_from_session(
                root(), self._token, number, current_earliest_seq=self.earliest_seq
            )
            self.has_earlier = number > 1
            self._set_rows(_public_rows(items) + self.rows)
        return scripts.scroll_to_anchor(chip.anchor)


# ----- the owner's Share panel on the chat page ------------------------------------------------


@dataclasses.dataclass
class LinkRow:
    id: str = ""
    label: str = ""
    status: str = "active"


def _thread_id_from_path(path: str) -> str:
    parts = [part for part in path.split("/") if part]
    return parts[-1] if len(parts) >= 2 and parts[-2] == "t" else ""


def _link_row(view: thread_service.ShareLinkView) -> LinkRow:
    expiry = f" · expires {view.expires_at:%Y-%m-%d}" if view.expires_at else " · never expires"
    label = f"Created {view.created_at:%Y-%m-%d %H:%M} · snapshot {view.updated_at:%Y-%m-%d %H:%M}"
    return LinkRow(id=view.id, label=label + expiry, status=view.status)


class ShareLinksState(IdentityState):
    """Create, list, refresh and revoke links; every call is owner-checked by the service."""

    links: list[LinkRow] = []
    new_url: str = ""
    expiry_days: str = "never"
    error: str = ""
    enabled: bool = True

    def _thread_id(self) -> str:
        return _thread_id_from_path(self.router.url.path)

    def _refresh(self) -> None:
        self.enabled = thread_service.sharing_enabled(root())
        self.links = [
            _link_row(v)
            for v in thread_service.list_links(root(), self._owner(), self._thread_id())
        ]

    @rx.event
    def open_panel(self) -> None:
        self.new_url, self.error = "", ""
        self._refresh()

    @rx.event
    def set_expiry_days(self, value: str) -> None:
        self.expiry_days = value

    @rx.event
    def create(self) -> None:
        days = None if self.expiry_days == "never" else int(self.expiry_days)
        try:
            created = thread_service.create_link(root(), self._owner(), self._thread_id(), days)
        except thread_service.SharingRefused as error:
            self.error = str(error)
            return
        if created is None:
            self.error = "This chat does not exist, or it is not yours."
            return
        path, _ = created
        self.new_url = f"{self.router.page.host}{path}"
        self.error = ""
        self._refresh()

    @rx.event
    def update_snapshot(self, link_id: str) -> None:
        thread_service.update_snapshot(root(), self._owner(), link_id)
        self._refresh()

    @rx.event
    def revoke(self, link_id: str) -> None:
        thread_service.revoke_link(root(), self._owner(), link_id)
        self._refresh()
