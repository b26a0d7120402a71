"""The start lane: a starting run's blocking calls skip the queue of the others."""

from __future__ import annotations

import asyncio
import threading

import pytest

from agent_core.runtime import begin_start
from chat_app.db.settings import start_lane_enabled
from chat_app.services.runtime.start_lane import LaneExecutor, install_start_lane


@pytest.fixture
async def lane_executor():
    executor = LaneExecutor(max_workers=1, start_workers=2)
    asyncio.get_running_loop().set_default_executor(executor)
    yield executor
    executor.shutdown(wait=False, cancel_futures=True)


def _thread_name() -> str:
    return threading.current_thread().name


async def test_a_starting_runs_calls_do_not_wait_behind_the_busy_main_pool(lane_executor):
    from agent_core.runtime import _lanes as lanes

    release = threading.Event()
    busy = [asyncio.create_task(asyncio.to_thread(release.wait, 10)) for _ in range(3)]
    await asyncio.sleep(0.05)  # the one main thread is taken, two calls queue behind it

    async def starting_run() -> list:
        begin_start()
        first = await asyncio.to_thread(_thread_name)
        lanes.end_start()
        later = asyncio.create_task(asyncio.to_thread(_thread_name))
        await asyncio.sleep(0.1)
        return [first, "waiting" if not later.done() else later.result(), later]

    first, second, later = await asyncio.wait_for(starting_run(), 5)
    assert first.startswith("baton-start")
    assert second == "waiting"  # once started, its calls queue in the main pool again
    release.set()
    await asyncio.gather(*busy)
    assert (await later).startswith("baton-work")


def test_the_lane_is_on_unless_the_setting_turns_it_off() -> None:
    assert start_lane_enabled({}) and start_lane_enabled({"BATON_START_LANE": " ON "})
    assert not start_lane_enabled({"BATON_START_LANE": "off"})
    with pytest.raises(ValueError, match="BATON_START_LANE must be on or off, not 'yes'"):
        start_lane_enabled({"BATON_START_LANE": "yes"})


async def test_installed_only_when_on(monkeypatch: pytest.MonkeyPatch) -> None:
    loop = asyncio.get_running_loop()
    monkeypatch.setenv("BATON_START_LANE", "off")
    assert not install_start_lane(loop)
    monkeypatch.setenv("BATON_START_LANE", "on")
    assert install_start_lane(loop)
    assert "baton-work" in await asyncio.to_thread(_thread_name)
