"""Every reach into another library's private internals, in one package, one module per library
(:mod:`~chat_app.upstream.reflex`, :mod:`~chat_app.upstream.granian`).

Baton touches a few attributes that Reflex and granian keep for themselves, because neither
offers a public way to do what the app needs (each shim says what and why). They are
someone else's house: an upgrade may move them without notice. So they live here only,
each named in :data:`REACHES` with the version it was written against, and
``tests/chat_app/test_upstream.py`` checks every reach against the installed libraries:
an upgrade that moves one fails that test with the package, its installed version and the
attribute, instead of a worker going quietly wrong in production.

The imports of Reflex and granian are made inside the functions: ``rxconfig.py`` imports
this module in the supervisor before Reflex starts, and the turn process never loads
Reflex.

``REACHES`` is the one list.
"""

from chat_app.upstream import granian, reflex
from chat_app.upstream.granian import BackoffRespawns, supervise_workers
from chat_app.upstream.reach import Reach, UpstreamMoved, confirm
from chat_app.upstream.reflex import (
    forget_disk_state,
    idle_disk_states,
    purge_disk_states_less_often,
    rearm_redis_tasks,
    ride_out_redis_cuts,
    socket_records,
    tab_sockets,
)

__all__ = [
    "REACHES",
    "Reach",
    "UpstreamMoved",
    "BackoffRespawns",
    "confirm",
    "forget_disk_state",
    "idle_disk_states",
    "purge_disk_states_less_often",
    "rearm_redis_tasks",
    "ride_out_redis_cuts",
    "socket_records",
    "tab_sockets",
    "supervise_workers",
]

#: Every reach, the one list ``tests/chat_app/test_upstream.py`` checks.
REACHES: tuple[Reach, ...] = (*reflex.REACHES, *granian.REACHES)
