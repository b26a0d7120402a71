"""SqlStore: :class:`agent_core.storage._ports.SessionStore` on SQLModel (SQLite or PostgreSQL).

Behaves like :class:`agent_core.storage._memory_store.InMemoryStore`; the shared contract tests hold
both to that. Every method is one transaction. Writers lock the thread row first (``SELECT
... FOR UPDATE`` on PostgreSQL; on SQLite every write transaction is ``BEGIN IMMEDIATE``,
which already excludes other writers), so seq numbers, session numbers and pending delivery
are decided by one writer at a time per thread, and always in the same lock order.
"""

from chat_app.db.store.resets import Resets
from chat_app.db.store.sessions import SessionRows
from chat_app.db.store.turns import TurnLocks

__all__ = ["SqlStore"]


class SqlStore(SessionRows, Resets, TurnLocks):
    """Thread store on a SQLAlchemy engine. Threads themselves are created by
    :func:`chat_app.db.repo.create_thread`; the store refuses ids it does not know.

    ``_fault_hook`` is None in production. Tests set it to a callable taking a step name
    (``boundary_written``, ``session_opened``, ``pending_delivered``, ``committed``) to
    fail or kill the process at that point of :meth:`commit_reset`.
    """
