"""The composition root's object: everything a process's use cases run on, built once.

:func:`build_app` makes the :class:`App` from the :class:`~chat_app.settings.Settings`: the
database (migrated to the newest schema), the thread store on it, the runner, the MCP tool
loader. The web process builds it at start-up (``chat_app.root``), the turn process and the
benchmarks build their own, and a test builds one from a URL; each hands it down. Nothing
here is a module global: two ``App`` objects on two databases live side by side.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_core import McpToolbox, ThreadRunner
from chat_app.db.engine import get_engine
from chat_app.db.migrate import migrate
from chat_app.db.store import SqlStore
from chat_app.services.runtime.backend import Backend
from chat_app.settings import Settings

__all__ = ["App", "build_app"]


@dataclass(frozen=True, eq=False)
class App(Backend):
    """The process's :class:`Backend` (what every service reads and writes through, with
    the settings), and what the process's runs share beside it."""


def build_app(settings: Settings) -> App:
    """The app on ``settings``: its database migrated, its store, runner and tool loader."""
    url = settings.database_url
    migrate(url)
    engine = get_engine(url)
    return App(
        engine=engine,
        store=SqlStore(engine),
        runner=ThreadRunner(),
        settings=settings,
        toolbox=McpToolbox(
            load_timeout=settings.mcp_timeout, cache_seconds=settings.mcp_cache_seconds
        ),
    )
