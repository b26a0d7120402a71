"""Turn leases: which worker runs a thread's turn now, until when, and under which fence.

A lease is a row, not a connection: losing a database connection (a restart, a failover, a
pooler, an idle timeout) loses nothing, and a running turn holds no pooled connection. The
holder renews ``expires_at`` while the turn runs; every write of the turn checks, in its own
transaction, that the lease is still its own (:mod:`chat_app.db.lease`).
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from chat_app.db.models.types import UTCDateTime

__all__ = ["TurnLease"]


class TurnLease(SQLModel, table=True):
    __tablename__ = "turn_lease"

    thread_id: str = Field(
        foreign_key="thread.id", ondelete="CASCADE", primary_key=True, max_length=32
    )
    holder: str = Field(max_length=64)
    """A random token of the holding turn (never reused)."""
    fence: int = 0
    """Counts the hand-overs of this thread's lease; a new holder always has a larger one."""
    expires_at: datetime = Field(sa_type=UTCDateTime)
