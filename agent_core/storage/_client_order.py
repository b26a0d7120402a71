"""Each browser tab's messages are queued in the order the tab sent them.

A tab numbers its sends: its client ids read ``<tab>.<n>.<nonce>`` (made by the composer's
outbox). Sends of one tab can reach the server out of order: each runs as its own task, a
reconnect may carry a retry to another worker. A message that arrives after a later one of
its tab, while that later one is still undelivered, takes the later one's place in the queue;
the tab's waiting messages move one slot on. Other tabs' messages keep their slots. Ids of
another shape (older pages, API clients) are queued in arrival order.

Pure functions; the stores apply what they decide in the transaction that queues the message.
"""

from __future__ import annotations

import re

__all__ = ["ClientOrder", "client_order", "queue_slots"]

_CLIENT_ID = re.compile(r"^([A-Za-z0-9_-]{4,20})\.(\d{1,12})\.")

ClientOrder = tuple[str, int]


def client_order(client_id: str | None) -> ClientOrder | None:
    """``(tab, n)`` for an id made by the outbox, else None."""
    match = _CLIENT_ID.match(client_id or "")
    return (match.group(1), int(match.group(2))) if match else None


def queue_slots(
    arriving: ClientOrder | None,
    waiting: list[tuple[int, str | None]],
    next_seq: int,
) -> tuple[int, dict[int, int]]:
    """Where an arriving message goes in a thread's queue.

    ``waiting`` holds the undelivered messages as ``(queue seq, client id)``; ``next_seq`` is
    the slot a message arriving last would take. Returns the arriving message's seq and the
    new seq of each waiting message that moves (old seq -> new seq).
    """
    if arriving is None:
        return next_seq, {}
    tab, number = arriving
    later = sorted(
        seq
        for seq, client_id in waiting
        if (order := client_order(client_id)) is not None and order[0] == tab and order[1] > number
    )
    if not later:
        return next_seq, {}
    # The tab's later messages shift one slot on, the last into the fresh slot.
    slots = [*later, next_seq]
    return slots[0], dict(zip(later, slots[1:], strict=True))
