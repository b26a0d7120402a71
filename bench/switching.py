"""How long the reads of a chat page's load take while another thread of the process
computes, at CPython's default GIL switch interval (5 ms) and at the app's
(``chat_app.serving.GIL_SWITCH_INTERVAL``), side by side.

Each database round trip lets go of the GIL; while another thread computes, taking it back
waits up to one switch interval (the convoy effect), once per round trip. The worker and the
turn process both have such threads (the executor's store calls, the status reader). The
bench builds the app on a scratch database, answers three messages of one chat with the
offline simulator, then times the ten reads a chat page's load makes (the chat's timeline
and meter, the chat list, the reset status...), ``--rounds`` times in each configuration,
the configurations taking turns: with no other thread, and with ``--busy`` threads
computing, at each interval.

Run: ``.venv/bin/python -m bench.switching`` (SQLite) or with ``--db-url
postgresql+psycopg://…`` (a scratch schema is made and dropped on that server).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

from bench._shared import median, p95


def _page_reads(app, owner: str, thread_id: str) -> list[Callable[[], object]]:
    from chat_app.services.admin import capabilities
    from chat_app.services.conversation import runs, threads

    return [
        lambda: threads.load_timeline(app, owner, thread_id),
        lambda: capabilities.commands_note(app, owner, thread_id),
        lambda: threads.list_threads(app, owner, ""),
        lambda: threads.list_assistant_choices(app),
        lambda: runs.chat_assistant(app, owner, thread_id),
        lambda: runs.reset_status(app, owner, thread_id),
        lambda: threads.fork_origin(app, owner, thread_id),
        lambda: threads.thread_feedback(app, owner, thread_id),
        lambda: threads.read_settings(app, owner),
        lambda: threads.imported_record(app, thread_id),
    ]


@contextlib.contextmanager
def _database(url: str | None) -> Iterator[str]:
    if url is None:
        with tempfile.TemporaryDirectory(prefix="baton-switching-") as folder:
            yield f"sqlite:///{Path(folder) / 'bench.db'}"
        return
    from sqlalchemy import create_engine, text

    schema = f"baton_switching_{uuid.uuid4().hex[:8]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    separator = "&" if "?" in url else "?"
    try:
        yield f"{url}{separator}options=-csearch_path%3D{schema}"
    finally:
        from chat_app.db.engine import dispose_engine

        with contextlib.suppress(Exception):
            dispose_engine(f"{url}{separator}options=-csearch_path%3D{schema}")
        with admin.connect() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@contextlib.contextmanager
def _computing(threads: int) -> Iterator[None]:
    """``threads`` threads that compute (pure Python, holding the GIL) until the block ends."""
    stop = threading.Event()

    def compute() -> None:
        while not stop.is_set():
            sum(range(2_000))

    workers = [threading.Thread(target=compute, daemon=True) for _ in range(threads)]
    for worker in workers:
        worker.start()
    try:
        yield
    finally:
        stop.set()
        for worker in workers:
            worker.join()


def _one_load(reads: list[Callable[[], object]]) -> float:
    start = time.perf_counter()
    for read in reads:
        read()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db-url", help="a PostgreSQL URL (default: a scratch SQLite file)")
    parser.add_argument("--rounds", type=int, default=30, help="page loads per configuration")
    parser.add_argument("--busy", type=int, default=1, help="threads computing beside")
    options = parser.parse_args(argv)

    from chat_app import root
    from chat_app.services.conversation import runs, threads
    from chat_app.services.runtime.container import build_app
    from chat_app.serving import GIL_SWITCH_INTERVAL
    from chat_app.settings import read_settings

    with _database(options.db_url) as url:
        app = root.install(build_app(read_settings().model_copy(update={"db_url": url})))
        owner = f"bench-{uuid.uuid4().hex[:8]}"
        thread = threads.create_thread(app, owner, "Switching")

        async def answer() -> None:
            unpaced = dataclasses.replace(
                app, settings=app.settings.model_copy(update={"sim_delay": 0})
            )
            for text in ("Write a config parser with tests", "Add a header row", "Add CSV"):
                async for _ in runs.send_message(unpaced, owner, thread.id, text):
                    pass

        asyncio.run(answer())
        reads = _page_reads(app, owner, thread.id)
        _one_load(reads)  # warm: the first load builds what later ones reuse
        default = sys.getswitchinterval()
        configurations = [
            ("alone", 0, default),
            (f"{options.busy} busy, 5 ms", options.busy, 0.005),
            (
                f"{options.busy} busy, {GIL_SWITCH_INTERVAL * 1000:g} ms",
                options.busy,
                GIL_SWITCH_INTERVAL,
            ),
        ]
        samples: dict[str, list[float]] = {name: [] for name, _, _ in configurations}
        try:
            for _ in range(options.rounds):  # the configurations take turns
                for name, busy, interval in configurations:
                    sys.setswitchinterval(interval)
                    with _computing(busy):
                        samples[name].append(_one_load(reads))
        finally:
            sys.setswitchinterval(default)
            root.uninstall()

    backend = "PostgreSQL" if options.db_url else "SQLite"
    print(f"A chat page's ten load reads on {backend}, {options.rounds} loads each (ms):")
    print(f"{'configuration':<22} {'median':>8} {'p95':>8}")
    for name, taken in samples.items():
        print(f"{name:<22} {median(taken) * 1000:8.1f} {p95(taken) * 1000:8.1f}")
    slow, fast = (statistics.median(samples[name]) for name, _, _ in configurations[1:])
    print(f"5 ms / {GIL_SWITCH_INTERVAL * 1000:g} ms with a thread computing: {slow / fast:.2f}x")


if __name__ == "__main__":
    main()
