"""Every place Baton reaches into Reflex's private parts, in one room.

Reflex 0.10 has no public API for two things the app needs:

- whether a tab's websocket is open on this worker: the event namespace's token manager
  (``EventNamespace._token_manager``) holds the socket records;
- re-arming its Redis pub/sub tasks after an outage. With Redis, each worker runs three
  tasks through ``reflex.utils.tasks.ensure_task``: the token manager's socket-record and
  lost-and-found subscriptions and the state manager's lock-release subscription. Each
  gives up for good after five errors within 60 s ("task exceeded exception limit 5 within
  60.0s"), which a Redis outage of a few seconds causes; the limit is a default of
  ``ensure_task`` that no setting reaches. Reflex starts them again only on a new socket
  connection (or a contended lock), and tabs that lived through the outage make none.
  :func:`rearm_redis_tasks` starts whichever has ended (``ensure_task`` leaves running ones).

``tests/chat_app/test_reflex_internals.py`` fails loudly when an upgrade moves any of these.
"""

from __future__ import annotations

import logging
from typing import Any

from reflex.istate.manager.redis import StateManagerRedis
from reflex.utils import prerequisites
from reflex.utils.token_manager import RedisTokenManager

__all__ = ["token_manager", "rearm_redis_tasks"]

_log = logging.getLogger(__name__)


def _app() -> Any:
    return prerequisites.get_app().app


def token_manager() -> Any:
    """The running app's token manager (its ``token_to_socket`` and ``instance_id``)."""
    namespace = _app().event_namespace
    return namespace._token_manager


def rearm_redis_tasks() -> list[str]:
    """Start again those of Reflex's Redis tasks that gave up; the names of those started."""
    started: list[str] = []
    app = _app()
    manager = token_manager()
    if isinstance(manager, RedisTokenManager):
        for attribute, ensure in (
            (
                "_lost_and_found_task",
                lambda: manager.ensure_lost_and_found_task(app.event_namespace.emit_update),
            ),
            ("_socket_record_task", manager._ensure_socket_record_task),
        ):
            task = getattr(manager, attribute)
            if task is None or task.done():
                ensure()
                started.append(attribute)
    states = app.state_manager
    if isinstance(states, StateManagerRedis) and (
        states._lock_task is None or states._lock_task.done()
    ):
        states._ensure_lock_task()
        started.append("_lock_task")
    if started:
        _log.warning("Reflex's Redis tasks started again after an outage: %s", started)
    return started
