"""Share links: read-only access to a thread up to a snapshot, by an unguessable token."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from chat_app.db.models.types import UTCDateTime, new_id, utcnow

__all__ = ["ShareLinkBase", "ShareLink", "ShareLinkPublic"]


class ShareLinkBase(SQLModel):
    snapshot_seq: int = 0
    expires_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    revoked_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class ShareLink(ShareLinkBase, table=True):
    """Only the token's sha256 is stored: a database leak does not leak working links."""

    __tablename__ = "share_link"

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    thread_id: str = Field(foreign_key="thread.id", ondelete="CASCADE", index=True, max_length=32)
    token_hash: str = Field(unique=True, max_length=64)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class ShareLinkPublic(ShareLinkBase):
    """A link as the owner sees it (never the token or its hash)."""

    id: str
    thread_id: str
    created_at: datetime
    updated_at: datetime
