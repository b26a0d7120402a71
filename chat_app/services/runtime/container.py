"""The composition root's object: everything a process's use cases run on, built once.

:func:`build_app` makes the :class:`App` from the :class:`~chat_app.settings.Settings`: the
database (migrated to the newest schema), the thread store on it, the runner, the MCP tool
loader. The web process builds it at start-up (``chat_app.root``), the turn process and the
benchmarks build their own, and a test builds one from a URL; each hands it down. Nothing
here is a module global: two ``App`` objects on two databases live side by side.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import cached_property

from agent_core import ThreadRunner
from agent_core.redaction import remember_secrets
from agent_core.sandbox import limits_from_settings
from agent_core.tools import McpToolbox
from chat_app.db.engine import get_engine
from chat_app.db.migrate import migrate
from chat_app.db.store import SqlStore
from chat_app.services.runtime.backend import Backend
from chat_app.services.runtime.cancels import Cancels
from chat_app.services.runtime.live import LiveChannel
from chat_app.services.runtime.send_order import SendOrder, SendsInFlight
from chat_app.services.runtime.turn_process import TurnProcess
from chat_app.services.security.identity import signing_key
from chat_app.settings import Settings

__all__ = ["App", "build_app"]

_log = logging.getLogger(__name__)


@dataclass(frozen=True, eq=False)
class App(Backend):
    """The process's :class:`Backend` (what every service reads and writes through, with
    the settings), and what the process's runs share beside it: the order of each tab's
    sends and the sends going on, the running threads' cancel flags, the turn process the
    runs go to once the web process starts it (:attr:`executor` says where a run goes), and
    the live channel every tab of a thread follows its runs on, and the key its identity
    cookies are signed with (:attr:`identity_key`)."""

    live: LiveChannel = field(default_factory=LiveChannel)
    send_order: SendOrder = field(default_factory=SendOrder)
    sends_in_flight: SendsInFlight = field(default_factory=SendsInFlight)
    cancels: Cancels = field(default_factory=Cancels)
    turn_process: TurnProcess = field(default_factory=TurnProcess)

    @cached_property
    def identity_key(self) -> bytes:
        """The key this app's identity cookies and state-token bindings are signed with
        (``Settings.secret_key``, else the key file's), found when first needed: a process
        that mints no identity (a turn process, a benchmark) never creates the file."""
        return signing_key(self.settings)

    def runs_here(self) -> int:
        """How many turns (or handoffs) of this process are running now, those it has
        handed to its turn process included."""
        return len(self.cancels) + self.turn_process.active_runs()

    def is_busy(self, thread_id: str) -> bool:
        """Whether this process runs something of ``thread_id`` now, itself or in its turn
        process (another worker's turn holds the thread's turn lock instead)."""
        return self.runner.is_busy(thread_id) or self.turn_process.is_busy(thread_id)

    def request_stop(self, thread_id: str) -> bool:
        """Stop the run of ``thread_id`` going here or in the turn process, if there is one."""
        return self.cancels.request_stop(thread_id) | self.turn_process.request_stop(thread_id)


def build_app(settings: Settings) -> App:
    """The app on ``settings``: its database migrated, its store, runner and tool loader.
    The environment's credentials become the process's known secrets, which its logs and the
    errors its users see never repeat (the engine reads no environment to learn them)."""
    remember_secrets(settings.environment_secrets)
    _, problems = limits_from_settings(settings.sandbox_limits)
    for problem in problems:  # once, at start-up, not at every turn
        _log.warning("sandbox setting ignored: %s", problem)
    url = settings.database_url
    migrate(url)
    engine = get_engine(url)
    return App(
        engine=engine,
        store=SqlStore(engine, lease_seconds=settings.turn_lease, holder_tag=settings.turn_holder),
        runner=ThreadRunner(),
        settings=settings,
        toolbox=McpToolbox(
            load_timeout=settings.mcp_timeout, cache_seconds=settings.mcp_cache_seconds
        ),
        live=LiveChannel(settings.redis_url),
    )
