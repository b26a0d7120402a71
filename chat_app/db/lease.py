"""A thread's turn lease on PostgreSQL: held as a row, renewed while the turn runs, fenced.

The advisory lock this replaces lived on one pooled connection for a whole turn and was never
checked again: when that connection died (a restart, a failover, a pooler, an idle timeout,
``pg_terminate_backend``) PostgreSQL released the lock, a second worker took the thread, and
both turns wrote every step. Here:

- **Acquire**: insert or take over the ``turn_lease`` row when it is free or expired
  (``SELECT ... FOR UPDATE``), with a fresh holder token and a larger fence; otherwise wait.
- **Renew**: a thread extends ``expires_at`` every third of the lease while the turn runs,
  each time on a short transaction from the pool (no connection is held in between). A
  renewal that finds the lease taken marks it lost.
- **Fence**: every write of the turn checks, in its own transaction and under ``FOR SHARE``
  (a takeover waits for it), that the lease is still its holder's and unexpired; otherwise it
  raises :class:`LeaseLost` and stores nothing, so a turn that lost the thread stops at its
  next write instead of writing beside the new holder.

Times are the database server's (``now()``), so workers on several hosts agree on expiry.
A worker killed mid-turn holds the thread until its lease expires (``BATON_TURN_LEASE``
seconds, default 15).
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from sqlalchemy import delete, func, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlmodel import Session, select

from agent_core import StoreError
from chat_app.db.models import TurnLease

__all__ = ["LEASE_SECONDS", "LeaseLost", "TurnLeaseHold", "check_fence", "turn_lease"]

log = logging.getLogger(__name__)

LEASE_SECONDS = float(os.environ.get("BATON_TURN_LEASE", "15"))
_MAX_POLL_SECONDS = 1.0


class LeaseLost(StoreError):
    """The turn's lease on its thread expired or was taken over; nothing was stored."""


def _now(db: Session) -> datetime:
    return db.exec(select(func.now())).one()


class TurnLeaseHold:
    """A held lease: renewed in the background until :meth:`stop`."""

    def __init__(self, engine: Engine, thread_id: str, holder: str, seconds: float) -> None:
        self.engine, self.thread_id, self.holder, self.seconds = engine, thread_id, holder, seconds
        self.lost = False
        self._stop = threading.Event()
        self._renewer = threading.Thread(target=self._renew_until_stopped, daemon=True,
                                         name=f"turn-lease-{thread_id}")

    def start(self) -> None:
        self._renewer.start()

    def stop(self) -> None:
        self._stop.set()
        self._renewer.join(timeout=self.seconds)

    def renew(self) -> bool:
        """Extend the lease if it is still this holder's; False (and ``lost``) if not."""
        with Session(self.engine) as db:
            now = _now(db)
            renewed = db.execute(
                update(TurnLease)
                .where(TurnLease.thread_id == self.thread_id, TurnLease.holder == self.holder,
                       TurnLease.expires_at > now)
                .values(expires_at=now + timedelta(seconds=self.seconds))
            ).rowcount
            db.commit()
        if not renewed:
            self.lost = True
        return bool(renewed)

    def _renew_until_stopped(self) -> None:
        while not self._stop.wait(self.seconds / 3):
            try:
                if not self.renew():
                    log.error("turn lease on thread %s was lost; the turn stops at its next write",
                              self.thread_id)
                    return
            except SQLAlchemyError as exc:  # try again next time; expiry decides
                log.warning("renewing the turn lease on thread %s failed: %s", self.thread_id,
                            exc.__class__.__name__)

    def release(self) -> None:
        try:
            with Session(self.engine) as db:
                db.execute(
                    delete(TurnLease).where(
                        TurnLease.thread_id == self.thread_id, TurnLease.holder == self.holder
                    )
                )
                db.commit()
        except SQLAlchemyError as exc:  # it expires on its own
            log.warning("releasing the turn lease on thread %s failed: %s", self.thread_id,
                        exc.__class__.__name__)


def _try_acquire(engine: Engine, thread_id: str, holder: str, seconds: float) -> bool:
    try:
        with Session(engine) as db:
            now = _now(db)
            expires = now + timedelta(seconds=seconds)
            row = db.exec(
                select(TurnLease).where(TurnLease.thread_id == thread_id).with_for_update()
            ).first()
            if row is None:
                db.add(TurnLease(thread_id=thread_id, holder=holder, fence=1, expires_at=expires))
            elif row.expires_at > now:
                return False
            else:
                row.holder, row.fence, row.expires_at = holder, row.fence + 1, expires
                db.add(row)
            db.commit()
            return True
    except IntegrityError:  # another worker inserted the first lease of this thread first
        return False


@contextmanager
def turn_lease(engine: Engine, thread_id: str, *, seconds: float | None = None,
               poll: float = 0.1) -> Iterator[TurnLeaseHold]:
    """Hold the turn lease of ``thread_id`` for the block (waiting for it as long as needed)."""
    seconds = seconds or LEASE_SECONDS
    holder = secrets.token_hex(16)
    while not _try_acquire(engine, thread_id, holder, seconds):
        time.sleep(poll)
        poll = min(poll * 1.5, _MAX_POLL_SECONDS)
    hold = TurnLeaseHold(engine, thread_id, holder, seconds)
    hold.start()
    try:
        yield hold
    finally:
        hold.stop()
        hold.release()


def check_fence(db: Session, hold: TurnLeaseHold) -> None:
    """Raise :class:`LeaseLost` unless ``hold`` still owns its lease (call inside a write)."""
    row = db.exec(
        select(TurnLease.holder)
        .where(TurnLease.thread_id == hold.thread_id, TurnLease.holder == hold.holder,
               TurnLease.expires_at > func.now())
        .with_for_update(read=True)
    ).first()
    if row is None:
        hold.lost = True
        raise LeaseLost(
            "This turn lost its hold on the chat (its lease expired or another worker took "
            "the chat over); it stopped without storing its last step."
        )
