"""Whether a tab is still connected to this backend worker."""

from __future__ import annotations

import logging

from chat_app.upstream import tab_sockets

__all__ = ["connected_here"]

_log = logging.getLogger(__name__)


def connected_here(token: str) -> bool:
    """True while the tab with state ``token`` has its websocket open on this process.

    A tab that closed, or reconnected to another worker (which starts its own watcher when
    the page loads there), is no longer followed from here.
    """
    try:
        manager = tab_sockets()
        record = manager.token_to_socket.get(token)
    except Exception:  # Reflex's internals moved: keep watching rather than go silent
        _log.warning("cannot tell whether tab %s is connected", token[:8], exc_info=True)
        return True
    return record is not None and record.instance_id == manager.instance_id
