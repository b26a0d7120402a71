"""What a service reads and writes through, handed in rather than looked up.

The composition root (:func:`chat_app.services.runtime.container.build_app`) builds it once
per process, as the :class:`~chat_app.services.runtime.container.App`; the pages' states, the
turn process and the benchmarks pass it to every service call as its first argument, ``app``.
A service therefore names what it touches, and a test can hand it an app of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.engine import Engine
from sqlmodel import Session

from agent_core import ThreadRunner
from agent_core.tools import McpToolbox
from chat_app.db.engine import read_engine, write_engine
from chat_app.db.store import SqlStore
from chat_app.settings import Settings

__all__ = ["Backend"]


@dataclass(frozen=True, eq=False)
class Backend:
    """The database, the thread store on it and the runner that runs the threads' turns, the
    settings the process read at start-up and the MCP tool loader built from them (each
    server's tools are kept for a few minutes)."""

    engine: Engine
    store: SqlStore
    runner: ThreadRunner
    settings: Settings
    toolbox: McpToolbox

    def read(self) -> Session:
        """A session for reading (on PostgreSQL in autocommit, see ``read_engine``: a write
        in it commits at once, statement by statement; use :meth:`write` for writes)."""
        return Session(read_engine(self.engine))

    def write(self, *, expire_on_commit: bool = True) -> Session:
        """A session for writing: on SQLite its transaction takes the write lock at BEGIN,
        so two writers queue instead of one failing halfway (see ``write_engine``)."""
        return Session(write_engine(self.engine), expire_on_commit=expire_on_commit)
