"""A run's events reach the page in batches; the run never waits for the page."""

from __future__ import annotations

import asyncio

import pytest

from chat_app.services.conversation.runs.batches import in_batches


async def test_the_run_goes_on_while_the_page_shows_a_batch() -> None:
    produced: list[int] = []

    async def run():
        for n in range(4):
            produced.append(n)
            yield n
            await asyncio.sleep(0)

    batches = []
    async for batch in in_batches(run()):
        batches.append(batch)
        if len(batches) == 1:
            await asyncio.sleep(0.05)  # the page is busy showing the first event
            assert produced == [0, 1, 2, 3]  # pulled by the page, the run would be at 0
    assert batches == [[0], [1, 2, 3]]


async def test_a_failure_of_the_run_comes_after_the_events_before_it() -> None:
    async def run():
        yield "accepted"
        raise RuntimeError("the provider went away")

    seen = []
    with pytest.raises(RuntimeError, match="provider went away"):
        async for batch in in_batches(run()):
            seen.extend(batch)
    assert seen == ["accepted"]


async def test_closing_the_page_stops_the_run_where_it_was() -> None:
    stopped = asyncio.Event()

    async def run():
        try:
            yield "first"
            await asyncio.sleep(30)
            yield "never"
        finally:
            stopped.set()

    batches = in_batches(run())
    assert await anext(batches) == ["first"]
    await batches.aclose()
    assert stopped.is_set()
