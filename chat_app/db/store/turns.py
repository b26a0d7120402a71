"""One turn of a thread at a time across processes, and the turns a crash cut."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager

from sqlalchemy import update
from sqlmodel import col, select

from agent_core import (
    StoreError,
)
from chat_app.db.lease import turn_lease
from chat_app.db.locks import named_lock
from chat_app.db.models import (
    Thread,
)
from chat_app.db.store.core import StoreCore

_log = logging.getLogger(__name__)


class TurnLocks(StoreCore):
    """The port's turn lock, and the answering marks that find the turns a crash cut."""

    def turn_lock(self, thread_id: str) -> AbstractContextManager[None]:
        """Serialize turns of one thread across processes; other threads never wait.

        PostgreSQL: a renewed, fenced lease (:mod:`chat_app.db.lease`): no connection is held
        for the turn, and a turn whose lease was lost cannot write. SQLite: an ``flock``
        beside the database, which only the holder's death releases.
        """
        return self._marked_turn(thread_id)

    @contextmanager
    def _marked_turn(self, thread_id: str) -> Iterator[None]:
        lock = (
            self._leased_turn(thread_id)
            if self._engine.dialect.name == "postgresql"
            else named_lock(self._engine, f"turn:{thread_id}")
        )
        with lock:
            try:
                yield
            finally:
                # Before the thread is let go: whoever takes it next finds no mark of a
                # turn that ended (answered, stopped or failed: anything but a crash).
                if thread_id in self._answering:
                    self._answering.discard(thread_id)
                    self._clear_answering(thread_id)

    def _clear_answering(self, thread_id: str) -> None:
        threads = Thread.__table__
        try:
            with self._tx(write=True) as db:
                db.execute(
                    update(threads).where(threads.c.id == thread_id).values(answering_seq=None)
                )
        except StoreError:
            # The turn ended all the same; the mark left makes the next start-up look at
            # the thread, which then finds its message answered and leaves it.
            _log.warning("could not clear the answering mark of thread %s", thread_id)

    @contextmanager
    def _leased_turn(self, thread_id: str) -> Iterator[None]:
        with turn_lease(
            self._engine, thread_id, seconds=self._lease_seconds, tag=self._holder_tag
        ) as hold:
            self._leases[thread_id] = hold
            try:
                yield
            finally:
                self._leases.pop(thread_id, None)

    # turns cut by a crash -------------------------------------------------------
    def cut_turns(self) -> list[tuple[str, str]]:
        """(thread id, owner) of every thread marked as answering: a turn of it runs now,
        in some process, or was cut by a crash. :meth:`take_cut_turn` tells which."""
        with self._tx(write=False) as db:
            rows = db.exec(
                select(Thread.id, Thread.owner).where(col(Thread.answering_seq).is_not(None))
            )
            return [(row[0], row[1]) for row in rows]

    def take_cut_turn(self, thread_id: str) -> int | None:
        """Hold the thread's turn lock while calling this: the seq of the first message the
        cut turn had taken (its mark removed, so it is taken once), or None when no turn
        was cut (the mark of a turn that was running went when it let the thread go)."""
        threads = Thread.__table__
        with self._tx(write=True) as db:
            seq = db.execute(
                select(threads.c.answering_seq).where(threads.c.id == thread_id)
            ).scalar_one_or_none()
            if seq is not None:
                db.execute(
                    update(threads).where(threads.c.id == thread_id).values(answering_seq=None)
                )
            return seq
