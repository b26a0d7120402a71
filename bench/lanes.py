"""Does the start lane still pay? New turns' first words under load, with and without it.

The app's worker gives a starting turn threads of its own
(``chat_app.services.runtime.start_lane``, ``BATON_START_LANE``). This bench runs, in one
process and side by side, the same load in two configurations, each in a fresh event loop
on a fresh SQLite database (the app's store):

- ``plain``: asyncio's default executor (what tests and the CLI get, and the app with
  ``BATON_START_LANE=off``),
- ``threads``: the start lane's ``LaneExecutor``, as the worker and the turn process run.

Until December 2026 the worker also put a starting run's callbacks first in the event
loop's ready queue (asyncio's private ``_ready`` deque, replaced). Measured here beside the
other two (24 busy chats, 3 rounds) it took the median of first words from 141 to 186 ms
(p95 405 to 345 ms) and the busy chats' stream from 103 to 57 tokens/s, so it was removed.

The load: ``--busy`` chats each send message after message to the offline simulator (a
coding agent's steps: tool calls, file writes, every step stored), while ``--starts`` new
chats send their first message one after another, ``--gap`` seconds apart. Measured: each
new chat's first words (submit to first streamed token or stored reply), and how many
tokens the busy chats streamed meanwhile (what the lane costs the turns under way). The
configurations take turns, ``--rounds`` times, so a neighbour's load on a shared machine
falls on all of them alike.

Run: ``.venv/bin/python -m bench.lanes``
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agent_core import SimulatorChatModel, ThreadRunner, TurnSetup, make_policy, make_tools
from agent_core.events import MessageEvent, TokenEvent
from bench._shared import median, p95
from chat_app.db import repo
from chat_app.db.engine import dispose_engine, get_engine, write_session
from chat_app.db.migrate import migrate
from chat_app.db.store import SqlStore
from chat_app.services.runtime.start_lane import LaneExecutor

MESSAGE = "Build a CSV parser for invoices with tests"


def _plain(loop: asyncio.AbstractEventLoop) -> None:
    return None


def _threads(loop: asyncio.AbstractEventLoop) -> None:
    loop.set_default_executor(LaneExecutor())


CONFIGURATIONS: dict[str, Callable[[asyncio.AbstractEventLoop], None]] = {
    "plain": _plain,
    "threads": _threads,
}


@dataclass
class Tally:
    first_words: list[float] = field(default_factory=list)
    busy_tokens: int = 0
    busy_seconds: float = 0.0


def _is_first_output(event: object) -> bool:
    if isinstance(event, TokenEvent):
        return True
    return isinstance(event, MessageEvent) and event.row.role in ("assistant", "tool")


class Load:
    """Threads on one SQLite file, and the setup of a turn on each."""

    def __init__(self, url: str, chunk_delay: float) -> None:
        migrate(url)
        self.engine = get_engine(url)
        self.store = SqlStore(self.engine)
        self.chunk_delay = chunk_delay
        with write_session(self.engine) as session:
            self.assistant_id = repo.ensure_default_assistant(session=session).id

    def new_thread(self) -> TurnSetup:
        with write_session(self.engine) as session:
            thread_id = repo.create_thread(
                session=session, owner="bench", assistant_id=self.assistant_id
            ).id
        return TurnSetup(
            store=self.store,
            thread_id=thread_id,
            model=SimulatorChatModel(chunk_delay=self.chunk_delay),
            model_name="simulator",
            policy=make_policy(window_override=200_000),
            system_prompt="You are a coding agent.",
            tools=make_tools(self.store, thread_id),
        )


async def _busy_chat(
    runner: ThreadRunner, load: Load, stop: asyncio.Event, streamed: list[int]
) -> None:
    setup = await asyncio.to_thread(load.new_thread)
    while not stop.is_set():
        async for event in runner.submit(setup, MESSAGE):
            if isinstance(event, TokenEvent):
                streamed[0] += 1
            if stop.is_set():
                break


async def _first_words(runner: ThreadRunner, load: Load) -> float:
    setup = await asyncio.to_thread(load.new_thread)
    started = time.perf_counter()
    first = None
    async for event in runner.submit(setup, MESSAGE):
        if first is None and _is_first_output(event):
            first = time.perf_counter() - started
    if first is None:
        raise SystemExit("a new chat's turn ended without output")
    return first


async def _one_round(load: Load, options: argparse.Namespace, tally: Tally) -> None:
    runner, stop, streamed = ThreadRunner(), asyncio.Event(), [0]
    busy = [
        asyncio.create_task(_busy_chat(runner, load, stop, streamed)) for _ in range(options.busy)
    ]
    await asyncio.sleep(options.warmup)
    # Only the busy chats' tokens streamed while the new chats start count.
    tokens_before, began = streamed[0], time.perf_counter()
    starts = []
    for _ in range(options.starts):
        starts.append(asyncio.create_task(_first_words(runner, load)))
        await asyncio.sleep(options.gap)
    tally.first_words += await asyncio.gather(*starts)
    tally.busy_seconds += time.perf_counter() - began
    tally.busy_tokens += streamed[0] - tokens_before
    stop.set()
    for task in busy:
        task.cancel()
    await asyncio.gather(*busy, return_exceptions=True)


def run_configuration(
    name: str, options: argparse.Namespace, workdir: Path, round_number: int, tally: Tally
) -> None:
    url = f"sqlite:///{workdir / f'{name}-{round_number}.db'}"
    load = Load(url, options.chunk_delay)

    async def main() -> None:
        CONFIGURATIONS[name](asyncio.get_running_loop())
        await _one_round(load, options, tally)

    try:
        asyncio.run(main())
    finally:
        dispose_engine(url)


def _rate(tally: Tally) -> float:
    return tally.busy_tokens / tally.busy_seconds if tally.busy_seconds else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--busy", type=int, default=24, help="chats mid-turn throughout")
    parser.add_argument("--starts", type=int, default=12, help="new chats per round")
    parser.add_argument("--gap", type=float, default=0.25, help="seconds between new chats")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds of load before")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--chunk-delay", type=float, default=0.005)
    options = parser.parse_args()

    tallies = {name: Tally() for name in CONFIGURATIONS}
    with tempfile.TemporaryDirectory() as tmp:
        for round_number in range(options.rounds):
            for name in CONFIGURATIONS:
                run_configuration(name, options, Path(tmp), round_number, tallies[name])
                print(f"round {round_number + 1}: {name} done", flush=True)

    plain = tallies["plain"]
    print(
        f"\n{options.busy} busy chats, {options.starts} new chats x {options.rounds} rounds, "
        f"{options.gap:.2f} s apart (simulator chunk delay {options.chunk_delay} s)"
    )
    print(f"{'configuration':<15}{'first words median':>20}{'p95':>10}{'busy tokens/s':>15}")
    for name, tally in tallies.items():
        rate = _rate(tally)
        print(
            f"{name:<15}{median(tally.first_words) * 1000:>17.0f} ms"
            f"{p95(tally.first_words) * 1000:>7.0f} ms{rate:>15.0f}"
        )
    print("\nratios against plain (below 1: the lane helps)")
    for name, tally in tallies.items():
        if name == "plain":
            continue
        print(
            f"{name:<15} first words median x{median(tally.first_words) / median(plain.first_words):.2f}"
            f", p95 x{p95(tally.first_words) / p95(plain.first_words):.2f}"
            f"; busy chats' tokens/s x{_rate(tally) / _rate(plain):.2f}"
        )
    print(
        f"(spread of plain's first words: stdev {statistics.pstdev(plain.first_words) * 1000:.0f} ms)"
    )


if __name__ == "__main__":
    main()
