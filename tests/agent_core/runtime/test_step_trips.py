"""A model call's store work leaves the event loop once: under load every trip off the loop
waits for a thread and then for the loop to come back to it behind every other chat's
stream, so a turn's steps make as few as they can."""

from __future__ import annotations

from agent_core.runtime import _middleware as middleware
from agent_core.storage._memory_store import InMemoryStore
from tests.agent_core.runtime_helpers import make_setup, of_type, run

TASK = "build a CSV parser for the invoices folder"


class _CountingReads(InMemoryStore):
    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def messages(self, session_id):
        self.reads += 1
        return super().messages(session_id)


def _counting_trips(monkeypatch) -> list[str]:
    trips: list[str] = []
    real = middleware._off_loop

    async def counted(coordinator, work, *args):
        trips.append(getattr(work, "func", work).__name__)
        return await real(coordinator, work, *args)

    monkeypatch.setattr(middleware, "_off_loop", counted)
    return trips


async def test_each_model_call_makes_one_trip_off_the_loop(monkeypatch):
    trips = _counting_trips(monkeypatch)
    store = InMemoryStore()
    setup = make_setup(store, window=200_000)  # no reset, compaction or masking is due
    await run(setup, TASK)
    session = store.current_session(setup.thread_id)
    calls = sum(row.role == "assistant" for row in store.messages(session.id))
    assert calls > 3  # the simulator's turn takes several steps
    # The step stored, the queue delivered, the context measured and a handoff request
    # looked for: one trip. The turn's end stores its last step and looks once more.
    assert trips.count("_before_call") == calls
    assert trips.count("_synced_and_requested") == 1
    assert set(trips) <= {"_before_call", "_synced_and_requested", "compress_finished_todos"}


async def test_a_finished_todo_is_compressed_from_the_rows_its_summary_was_written_from(
    monkeypatch,
):
    trips = _counting_trips(monkeypatch)
    store = _CountingReads()
    setup = make_setup(store, window=200_000)
    events = await run(setup, TASK)
    compressions = trips.count("compress_finished_todos")
    assert compressions and of_type(events, "todo_compressed")
    # The turn's opening reads the session once; then the model's summary of each closed
    # todo and its compression read it once together.
    assert store.reads == 1 + compressions
