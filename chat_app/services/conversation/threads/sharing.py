"""Share links for the owner's Share panel and the read-only `/share/<token>` page.

Everything a stranger can reach goes through the token: each call resolves it again, so a
revoked or expired link stops working at once, and missing, revoked and expired links all
give the same ``None`` (one not-found page, nothing to tell them apart). The switch
``BATON_SHARING=off`` turns off creating and opening links for the whole instance.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict
from sqlmodel import Session

from chat_app.db import sharing as share_repo
from chat_app.db.models import ShareLink, utcnow
from chat_app.errors import Refused
from chat_app.services.conversation.threads import chats as thread_service
from chat_app.services.presentation.views import TimelineItem, TimelineView
from chat_app.services.runtime.backend import Backend

__all__ = [
    "SharingDisabled",
    "SharingRefused",
    "ShareLinkView",
    "MAX_EXPIRY_DAYS",
    "sharing_enabled",
    "share_path",
    "create_link",
    "list_links",
    "update_snapshot",
    "revoke_link",
    "link_is_live",
    "open_shared",
    "shared_earlier",
    "shared_from_session",
    "shared_handoff_markdown",
]

MAX_EXPIRY_DAYS = 365


class SharingRefused(Refused):
    """A link cannot be made as asked; the message says why."""

    default_code = "sharing_refused"


class SharingDisabled(SharingRefused):
    """Sharing is switched off for this instance (``BATON_SHARING=off``)."""

    default_code = "sharing_disabled"

    def __init__(self) -> None:
        super().__init__("Sharing is turned off on this Baton instance (BATON_SHARING=off).")


class ShareLinkView(BaseModel):
    """A link as its owner sees it in the Share panel. The token is never part of it: it
    exists only in the URL returned once by :func:`create_link`."""

    model_config = ConfigDict(extra="forbid")

    id: str
    created_at: datetime
    updated_at: datetime
    expires_at: datetime | None = None
    snapshot_seq: int = 0
    status: Literal["active", "revoked", "expired"] = "active"


def sharing_enabled(app: Backend) -> bool:
    """Whether the app was started with share links on (``BATON_SHARING``, on by default)."""
    return app.settings.sharing_enabled


def share_path(token: str) -> str:
    return f"/share/{token}"


def _as_aware(moment: datetime | None) -> datetime | None:
    if moment is not None and moment.tzinfo is None:
        return moment.replace(tzinfo=utcnow().tzinfo)
    return moment


def _view(link: ShareLink, now: datetime | None = None) -> ShareLinkView:
    moment = now or utcnow()
    expires_at = _as_aware(link.expires_at)
    status: Literal["active", "revoked", "expired"] = "active"
    if link.revoked_at is not None:
        status = "revoked"
    elif expires_at is not None and expires_at <= moment:
        status = "expired"
    return ShareLinkView(
        id=link.id,
        created_at=link.created_at,
        updated_at=link.updated_at,
        expires_at=expires_at,
        snapshot_seq=link.snapshot_seq,
        status=status,
    )


def _require_enabled(app: Backend) -> None:
    if not sharing_enabled(app):
        raise SharingDisabled()


def _owned_link(app: Backend, db: Session, owner: str, link_id: str) -> ShareLink | None:
    link = db.get(ShareLink, link_id)
    if link is None or thread_service.owned_thread(app, owner, link.thread_id) is None:
        return None
    return link


def create_link(
    app: Backend, owner: str, thread_id: str, expires_in_days: int | None = None
) -> tuple[str, ShareLinkView] | None:
    """A new link to ``owner``'s thread as it is now: ``("/share/<token>", view)``.

    The URL is returned only here (only the token's hash is stored). None when the thread
    is not ``owner``'s. Raises :class:`SharingDisabled`, or :class:`SharingRefused` for a bad
    expiry.
    """
    _require_enabled(app)
    if expires_in_days is not None and not 1 <= expires_in_days <= MAX_EXPIRY_DAYS:
        raise SharingRefused(
            f"A link expires after 1 to {MAX_EXPIRY_DAYS} days, or never.",
            field="expiry_days",
            code="bad_expiry",
        )
    if thread_service.owned_thread(app, owner, thread_id) is None:
        return None
    expires_at = utcnow() + timedelta(days=expires_in_days) if expires_in_days else None
    with app.write() as db:
        link, token = share_repo.create_share_link(
            session=db, thread_id=thread_id, expires_at=expires_at
        )
        return share_path(token), _view(link)


def list_links(app: Backend, owner: str, thread_id: str) -> list[ShareLinkView]:
    """``owner``'s links to the thread, newest first (revoked and expired ones included)."""
    if thread_service.owned_thread(app, owner, thread_id) is None:
        return []
    with app.read() as db:
        return [
            _view(link) for link in share_repo.list_share_links(session=db, thread_id=thread_id)
        ]


def update_snapshot(app: Backend, owner: str, link_id: str) -> ShareLinkView | None:
    """Move the link's snapshot to the thread's latest message; the URL stays the same."""
    with app.write() as db:
        if _owned_link(app, db, owner, link_id) is None:
            return None
        link = share_repo.update_share_snapshot(session=db, link_id=link_id)
        return _view(link) if link else None


def revoke_link(app: Backend, owner: str, link_id: str) -> ShareLinkView | None:
    """Stop the link from opening, for good."""
    with app.write() as db:
        if _owned_link(app, db, owner, link_id) is None:
            return None
        link = share_repo.revoke_share_link(session=db, link_id=link_id)
        return _view(link) if link else None


def _live_link(app: Backend, token: str) -> ShareLink | None:
    if not sharing_enabled(app):
        return None
    with app.read() as db:
        return share_repo.resolve_share_token(session=db, token=token)


def link_is_live(app: Backend, token: str) -> bool:
    """Whether ``token`` opens a shared thread now (not missing, revoked or expired)."""
    return _live_link(app, token) is not None


def open_shared(app: Backend, token: str, *, limit: int = 100) -> TimelineView | None:
    """The thread behind ``token`` up to the link's snapshot, without the context meter.

    None for a missing, revoked or expired link and whenever sharing is off.
    """
    link = _live_link(app, token)
    if link is None:
        return None
    return thread_service.load_timeline(
        app, None, link.thread_id, limit=limit, upto_seq=link.snapshot_seq, with_meter=False
    )


def shared_earlier(
    app: Backend, token: str, before_seq: int, *, limit: int = 100
) -> TimelineView | None:
    """The rows before ``before_seq`` of the shared snapshot (the "Load earlier" button)."""
    link = _live_link(app, token)
    if link is None:
        return None
    return thread_service.load_timeline(
        app,
        None,
        link.thread_id,
        before_seq=before_seq,
        limit=limit,
        upto_seq=link.snapshot_seq,
        with_meter=False,
    )


def shared_from_session(
    app: Backend, token: str, session_number: int, *, current_earliest_seq: int
) -> list[TimelineItem]:
    """Items of the shared snapshot from the start of ``session_number`` (chip navigator)."""
    link = _live_link(app, token)
    if link is None:
        return []
    return thread_service.load_from_session(
        app,
        None,
        link.thread_id,
        session_number,
        current_earliest_seq=current_earliest_seq,
        upto_seq=link.snapshot_seq,
    )


def shared_handoff_markdown(
    app: Backend, token: str, session_number: int
) -> tuple[str, str] | None:
    """(``HANDOFF-{n}.md``, markdown) of a handoff inside the shared snapshot."""
    link = _live_link(app, token)
    if link is None:
        return None
    return thread_service.handoff_markdown(
        app, None, link.thread_id, session_number, upto_seq=link.snapshot_seq
    )
