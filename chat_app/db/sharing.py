"""Share links: a token in a URL gives read-only access to a thread up to a snapshot.

Only the token's sha256 is stored. Missing, revoked and expired tokens resolve to the same
``None``, so a link's URL tells a stranger nothing about the thread behind it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime

from sqlmodel import Session, col, select

from chat_app.db.models import ShareLink, Thread, utcnow

__all__ = [
    "hash_token",
    "create_share_link",
    "update_share_snapshot",
    "revoke_share_link",
    "list_share_links",
    "resolve_share_token",
]


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _last_seq(session: Session, thread_id: str) -> int:
    thread = session.get(Thread, thread_id)
    if thread is None:
        raise LookupError(f"unknown thread {thread_id}")
    return thread.next_seq - 1


def create_share_link(
    *, session: Session, thread_id: str, expires_at: datetime | None = None
) -> tuple[ShareLink, str]:
    """A new link showing the thread as it is now. Returns the link and the token, which
    is not stored anywhere and cannot be shown again."""
    token = secrets.token_urlsafe(32)
    link = ShareLink(
        thread_id=thread_id,
        token_hash=hash_token(token),
        snapshot_seq=_last_seq(session, thread_id),
        expires_at=expires_at,
    )
    session.add(link)
    session.commit()
    return link, token


def update_share_snapshot(*, session: Session, link_id: str) -> ShareLink | None:
    """Move the link's snapshot to the thread's latest message (same URL, newer content)."""
    link = session.get(ShareLink, link_id)
    if link is None:
        return None
    link.snapshot_seq = _last_seq(session, link.thread_id)
    link.updated_at = utcnow()
    session.add(link)
    session.commit()
    return link


def revoke_share_link(*, session: Session, link_id: str) -> ShareLink | None:
    """Stop the link from resolving (kept for the owner's list). Idempotent."""
    link = session.get(ShareLink, link_id)
    if link is None:
        return None
    if link.revoked_at is None:
        link.revoked_at = link.updated_at = utcnow()
        session.add(link)
        session.commit()
    return link


def list_share_links(*, session: Session, thread_id: str) -> list[ShareLink]:
    """The thread's links, newest first, revoked ones included."""
    query = (
        select(ShareLink)
        .where(ShareLink.thread_id == thread_id)
        .order_by(col(ShareLink.created_at).desc())
    )
    return list(session.exec(query))


def resolve_share_token(
    *, session: Session, token: str, now: datetime | None = None
) -> ShareLink | None:
    """The live link for ``token``; None if it is unknown, revoked or expired."""
    if not token:
        return None
    wanted = hash_token(token)
    link = session.exec(select(ShareLink).where(ShareLink.token_hash == wanted)).first()
    if link is None or not hmac.compare_digest(link.token_hash, wanted):
        return None
    moment = now or utcnow()
    if link.revoked_at is not None or (link.expires_at is not None and link.expires_at <= moment):
        return None
    return link
