"""A tab's message waits for the one the tab sent before it, and for no longer than it must."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from chat_app.services.runtime import send_order
from chat_app.services.runtime.send_order import SendOrder


@pytest.fixture
def thread_id() -> str:
    return uuid.uuid4().hex


class _Store:
    """The store's ``has_client_message``: what another worker queued, and how often asked."""

    def __init__(self, *queued: str) -> None:
        self.queued, self.asked = set(queued), 0

    def __call__(self, thread_id: str, prefix: str) -> bool:
        self.asked += 1
        return any(client_id.startswith(prefix) for client_id in self.queued)


async def test_a_send_goes_as_soon_as_its_predecessor_here_is_queued(thread_id) -> None:
    # The store is asked again only after a minute: woken by nothing but the settle, the
    # send would still be waiting when the test gives up on it.
    order = SendOrder(poll_seconds=60)
    store = _Store()
    waiting = asyncio.create_task(order.after_predecessor(thread_id, "tab1.2.b", store))
    await asyncio.sleep(0.2)
    assert not waiting.done(), "it went before the tab's earlier message was queued"
    order.settle(thread_id, "tab1.1.a")
    await asyncio.wait_for(waiting, 5)
    assert store.asked == 1  # once, before waiting: not a poll every 50 ms


async def test_a_send_whose_predecessor_settled_here_asks_nobody(thread_id) -> None:
    order = SendOrder()
    store = _Store()
    order.settle(thread_id, "tab1.1.a")
    await asyncio.wait_for(order.after_predecessor(thread_id, "tab1.2.b", store), 1)
    assert store.asked == 0


async def test_a_predecessor_queued_by_another_worker_is_found_in_the_store(thread_id) -> None:
    order = SendOrder(poll_seconds=0.05)
    store = _Store()
    waiting = asyncio.create_task(order.after_predecessor(thread_id, "tab1.7.b", store))
    await asyncio.sleep(0.1)
    store.queued.add("tab1.6.a")
    await asyncio.wait_for(waiting, 1)


async def test_a_predecessor_that_never_comes_holds_the_send_a_bounded_time(thread_id) -> None:
    order = SendOrder(wait_seconds=10, poll_seconds=0.01)
    readings = iter([0.0, 4.0, 8.0, 12.0])  # the clock as the wait reads it: 4 s a poll
    store = _Store()
    waiting = order.after_predecessor(thread_id, "tab1.2.b", store, clock=lambda: next(readings))
    await asyncio.wait_for(waiting, 60)
    assert store.asked == 3  # at 0, 4 and 8 s; past 10 s it goes without its predecessor
    assert order.waiting() == 0


async def test_first_messages_and_ids_of_another_shape_never_wait(thread_id) -> None:
    order = SendOrder()
    store = _Store()
    for client_id in ("tab1.1.a", "no-number", None):
        await asyncio.wait_for(order.after_predecessor(thread_id, client_id, store), 0.1)
    assert store.asked == 0


async def test_fifty_sends_of_a_tab_started_at_once_queue_in_order(thread_id) -> None:
    """Each send queues after a random delay of its own, as tasks on a busy worker do."""
    order = SendOrder()
    import random

    queued: list[int] = []

    async def send(n: int) -> None:
        await asyncio.sleep(random.random() * 0.05)
        await order.after_predecessor(thread_id, f"tab1.{n}.x", _Store())
        queued.append(n)
        order.settle(thread_id, f"tab1.{n}.x")

    await asyncio.wait_for(asyncio.gather(*(send(n) for n in range(1, 51))), 10)
    assert queued == list(range(1, 51))


def test_a_message_knows_which_message_of_its_tab_came_before_it() -> None:
    assert send_order.predecessor_prefix("tabA.7.x") == "tabA.6."
    assert (
        send_order.predecessor_prefix("tabA.1.x") is None
    )  # a page's first message waits for none
    assert send_order.predecessor_prefix("plain-uuid") is None
