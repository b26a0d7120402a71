"""What a turn costs the process that runs it: CPU a turn and a message's first words.

The shape of the turn process without the web worker around it: ``--chats`` chats in one
process and one event loop, on the app's store (a fresh SQLite file) with the offline
simulator streaming a word every ``--chunk-delay`` seconds, the start lane installed as the
turn process installs it. Each chat opens with a first message, then sends ``--messages``
more, each once the previous turn has ended; the chats start ``--stagger`` seconds apart.
Measured: submit to the first output of each timed message (a streamed token, or a stored
reply or tool row), p50/p95, and the process's CPU seconds over all turns.

Nothing is compared inside one run: the figures are for the same command on two checkouts,
taken in turns (``git worktree add``), since the code under test is what differs. The load
bench (:mod:`bench.load`) is the goal's measure; this one isolates the turn process's share
of it. Its runs still spread widely (one code's first-words p95 went from 0.8 to 2.4 s in
five runs): compare several runs of each checkout, never one.

Run: ``.venv/bin/python -m bench.turn_cost [--chats 60] [--messages 2] [--rounds 1]``
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from agent_core import ThreadRunner
from agent_core.runtime import begin_start
from bench._shared import p95
from bench.lanes import MESSAGE, Load, _is_first_output
from chat_app.db.engine import dispose_engine
from chat_app.services.runtime.start_lane import LaneExecutor


async def _chat(
    runner: ThreadRunner, load: Load, number: int, options: argparse.Namespace
) -> list[float]:
    await asyncio.sleep(number * options.stagger)
    setup = await asyncio.to_thread(load.new_thread)
    firsts = []
    for index in range(options.messages + 1):  # the opening message is not timed
        begin_start()  # as a send does (chat_app.services.conversation.runs.sending)
        started, first = time.perf_counter(), None
        async for event in runner.submit(setup, f"{MESSAGE} ({index})"):
            if first is None and _is_first_output(event):
                first = time.perf_counter() - started
        if index and first is not None:
            firsts.append(first)
    return firsts


def _round(
    options: argparse.Namespace, workdir: Path, number: int
) -> tuple[list[float], float, int]:
    url = f"sqlite:///{workdir / f'turns-{number}.db'}"
    load = Load(url, options.chunk_delay)

    async def main() -> list[list[float]]:
        asyncio.get_running_loop().set_default_executor(LaneExecutor())
        runner = ThreadRunner()
        chats = (_chat(runner, load, n, options) for n in range(options.chats))
        return await asyncio.gather(*chats)

    cpu = time.process_time()
    try:
        per_chat = asyncio.run(main())
    finally:
        dispose_engine(url)
    firsts = [first for chat in per_chat for first in chat]
    return firsts, time.process_time() - cpu, options.chats * (options.messages + 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chats", type=int, default=60)
    parser.add_argument("--messages", type=int, default=2, help="timed messages a chat")
    parser.add_argument("--chunk-delay", type=float, default=0.01)
    parser.add_argument("--stagger", type=float, default=0.02, help="seconds between chats")
    parser.add_argument("--rounds", type=int, default=1)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for number in range(options.rounds):
            firsts, cpu, turns = _round(options, Path(tmp), number)
            print(
                f"round {number + 1}: {options.chats} chats x {options.messages + 1} turns: "
                f"first words p50 {statistics.median(firsts) * 1000:,.0f} ms, "
                f"p95 {p95(firsts) * 1000:,.0f} ms; CPU {cpu:.1f} s "
                f"({cpu / turns * 1000:,.0f} ms a turn)",
                flush=True,
            )


if __name__ == "__main__":
    main()
