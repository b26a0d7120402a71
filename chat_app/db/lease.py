"""A thread's turn lease on PostgreSQL: held as a row, renewed while the turn runs, fenced.

The advisory lock this replaces lived on one pooled connection for a whole turn and was never
checked again: when that connection died (a restart, a failover, a pooler, an idle timeout,
``pg_terminate_backend``) PostgreSQL released the lock, a second worker took the thread, and
both turns wrote every step. Here:

- **Acquire**: insert or take over the ``turn_lease`` row when it is free or expired
  (``SELECT ... FOR UPDATE``), with a fresh holder token and a larger fence; otherwise wait.
- **Renew**: the process's one renewer thread (:class:`LeaseRenewer`) extends ``expires_at``
  every third of the lease while the turn runs, every lease due in one ``UPDATE`` on a short
  transaction from the pool (no connection is held in between). A renewal that finds the
  lease taken marks it lost.
- **Fence**: every write of the turn checks, in its own transaction and under ``FOR SHARE``
  (a takeover waits for it), that the lease is still its holder's and unexpired; otherwise it
  raises :class:`LeaseLost` and stores nothing, so a turn that lost the thread stops at its
  next write instead of writing beside the new holder.

Times are the database server's (``now()``), so workers on several hosts agree on expiry.
A worker killed mid-turn holds the thread until its lease expires (``BATON_TURN_LEASE``
seconds, default 15). A turn process that dies is known dead to the worker that started it,
which hands it a holder tag (``BATON_TURN_HOLDER``) and frees its leases at once
(:func:`release_leases_of`): sends and resumes on its threads need not wait out the lease.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, exists, func, tuple_, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlmodel import Session, col, select

from agent_core import StoreError
from chat_app.db.models import TurnLease

__all__ = [
    "LEASE_SECONDS",
    "release_leases_of",
    "LeaseLost",
    "ProcessStopping",
    "LeaseRenewer",
    "TurnLeaseHold",
    "check_fence",
    "fence",
    "renew_leases",
    "renewer",
    "stop_waiting",
    "turn_lease",
]

log = logging.getLogger(__name__)

#: A turn lease's length by default (``BATON_TURN_LEASE``, the app's ``Settings.turn_lease``).
LEASE_SECONDS = 15.0
_MAX_POLL_SECONDS = 1.0


class LeaseLost(StoreError):
    """The turn's lease on its thread expired or was taken over; nothing was stored."""


class ProcessStopping(StoreError):
    """The process stops while the turn waits for its thread's lease: it does not start.
    Its message stays queued, and the next start-up answers it."""


# Set when the process stops (:func:`stop_waiting`); the lease waits sleep on it.
_stopping = threading.Event()


def stop_waiting() -> None:
    """The process is stopping (the app's shutdown): every turn waiting for a lease gives up
    at once (:class:`ProcessStopping`). Such a wait runs on an executor thread, which the
    interpreter joins before the process exits; the lease it waits for may be another
    worker's, stopping too, whose lease is freed only when it expires (up to
    ``LEASE_SECONDS``): the whole server's stop waited that long."""
    _stopping.set()


def _now(db: Session) -> datetime:
    return db.exec(select(func.now())).one()


class TurnLeaseHold:
    """A held lease: renewed by the process's :class:`LeaseRenewer` until :meth:`stop`."""

    def __init__(self, engine: Engine, thread_id: str, holder: str, seconds: float) -> None:
        self.engine, self.thread_id, self.holder, self.seconds = engine, thread_id, holder, seconds
        self.lost = False
        self.due = 0.0  # when the renewer renews it next (monotonic)

    def start(self) -> None:
        renewer().add(self)

    def stop(self) -> None:
        renewer().remove(self)

    def renew(self) -> bool:
        """Extend the lease now if it is still this holder's; False (and ``lost``) if not."""
        return self in renew_leases(self.engine, self.seconds, [self])

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
            log.warning(
                "releasing the turn lease on thread %s failed: %s",
                self.thread_id,
                exc.__class__.__name__,
            )


def renew_leases(engine: Engine, seconds: float, holds: list[TurnLeaseHold]) -> set[TurnLeaseHold]:
    """Extend every lease of ``holds`` still its holder's by ``seconds``, in one statement;
    the holds renewed. The others are marked ``lost``."""
    if not holds:
        return set()
    with Session(engine) as db:
        renewed = {
            (row[0], row[1])
            for row in db.execute(
                update(TurnLease)
                .where(
                    tuple_(TurnLease.thread_id, TurnLease.holder).in_(
                        [(hold.thread_id, hold.holder) for hold in holds]
                    ),
                    TurnLease.expires_at > func.now(),
                )
                .values(expires_at=func.now() + timedelta(seconds=seconds))
                .returning(TurnLease.thread_id, TurnLease.holder)
            )
        }
        db.commit()
    kept = {hold for hold in holds if (hold.thread_id, hold.holder) in renewed}
    for hold in holds:
        hold.lost = hold.lost or hold not in kept
    return kept


class LeaseRenewer:
    """The process's one renewer of its turn leases: a thread that extends each held lease every
    third of its time, all those due in one statement per database.

    Each held lease once had a thread of its own, each renewal two statements: with 100 turns
    running that was 100 threads waking every 5 s to make 200 round trips, beside the turns'
    own writes. A renewal that fails (the database unreachable) is tried again next time:
    expiry decides; a lease found taken is marked lost and dropped.
    """

    def __init__(self) -> None:
        self._holds: set[TurnLeaseHold] = set()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def add(self, hold: TurnLeaseHold) -> None:
        with self._changed:
            hold.due = time.monotonic() + hold.seconds / 3
            self._holds.add(hold)
            if self._thread is None or not self._thread.is_alive():  # a fork has none
                self._thread = threading.Thread(
                    target=self._run, daemon=True, name="turn-lease-renewer"
                )
                self._thread.start()
            self._changed.notify()

    def remove(self, hold: TurnLeaseHold) -> None:
        with self._changed:
            self._holds.discard(hold)

    def _run(self) -> None:
        while True:
            with self._changed:
                now = time.monotonic()
                due_at = min((hold.due for hold in self._holds), default=now + 60)
                if due_at > now:
                    self._changed.wait(due_at - now)
                    continue
                # Those due within a sixth of their time go now too: fewer, fuller statements.
                due = [hold for hold in self._holds if hold.due <= now + hold.seconds / 6]
            self._renew(due)

    def _renew(self, due: list[TurnLeaseHold]) -> None:
        batches: dict[tuple[Engine, float], list[TurnLeaseHold]] = {}
        for hold in due:
            hold.due = time.monotonic() + hold.seconds / 3
            batches.setdefault((hold.engine, hold.seconds), []).append(hold)
        for (engine, seconds), holds in batches.items():
            try:
                kept = renew_leases(engine, seconds, holds)
            except SQLAlchemyError as exc:  # try again next time; expiry decides
                log.warning(
                    "renewing %d turn leases failed: %s", len(holds), exc.__class__.__name__
                )
                continue
            for hold in set(holds) - kept:
                log.error(
                    "turn lease on thread %s was lost; the turn stops at its next write",
                    hold.thread_id,
                )
                self.remove(hold)


_renewer = LeaseRenewer()


def renewer() -> LeaseRenewer:
    """The process's lease renewer."""
    return _renewer


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


def release_leases_of(engine: Engine, tag: str) -> int:
    """Free every turn lease held by the process tagged ``tag`` (``BATON_TURN_HOLDER``),
    which its worker saw die; how many. Only for a process known dead: its turns can no
    longer write, and the fence stops any that could."""
    if not tag or engine.dialect.name != "postgresql":
        return 0  # SQLite's turn locks are flocks, which the holder's death released
    with Session(engine) as db:
        freed = db.exec(
            delete(TurnLease).where(col(TurnLease.holder).startswith(f"{tag}."))
        ).rowcount
        db.commit()
    return freed or 0


@contextmanager
def turn_lease(
    engine: Engine,
    thread_id: str,
    *,
    seconds: float = LEASE_SECONDS,
    tag: str = "",
    poll: float = 0.1,
    sleep: Callable[[float], object] | None = None,
) -> Iterator[TurnLeaseHold]:
    """Hold the turn lease of ``thread_id`` for the block (waiting for it as long as needed,
    unless the process stops meanwhile: :class:`ProcessStopping`).

    ``tag`` prefixes the holder (a turn process's, so its parent can free its leases when it
    dies: :func:`release_leases_of`). ``sleep`` waits between attempts (by default until the
    process stops, at most ``poll`` seconds); tests hand in one that says whether a wait
    happened.
    """
    holder = f"{tag}.{secrets.token_hex(12)}" if tag else secrets.token_hex(16)
    while not _try_acquire(engine, thread_id, holder, seconds):
        if _stopping.is_set():
            raise ProcessStopping(
                "The server is stopping: this message waits, queued, for it to start again."
            )
        (sleep or _stopping.wait)(poll)
        poll = min(poll * 1.5, _MAX_POLL_SECONDS)
    hold = TurnLeaseHold(engine, thread_id, holder, seconds)
    hold.start()
    try:
        yield hold
    finally:
        hold.stop()
        hold.release()


def fence(hold: TurnLeaseHold) -> Any:
    """A condition for a write's own statement: true while ``hold`` owns its lease, which it
    keeps under ``FOR SHARE`` for the transaction (a takeover waits for it), as
    :func:`check_fence` does, without a statement of its own."""
    return exists(
        select(TurnLease.holder)
        .where(
            TurnLease.thread_id == hold.thread_id,
            TurnLease.holder == hold.holder,
            TurnLease.expires_at > func.now(),
        )
        .with_for_update(read=True)
    )


def check_fence(db: Session, hold: TurnLeaseHold) -> None:
    """Raise :class:`LeaseLost` unless ``hold`` still owns its lease (call inside a write)."""
    row = db.exec(
        select(TurnLease.holder)
        .where(
            TurnLease.thread_id == hold.thread_id,
            TurnLease.holder == hold.holder,
            TurnLease.expires_at > func.now(),
        )
        .with_for_update(read=True)
    ).first()
    if row is None:
        hold.lost = True
        raise LeaseLost(
            "This turn lost its hold on the chat (its lease expired or another worker took "
            "the chat over); it stopped without storing its last step."
        )
