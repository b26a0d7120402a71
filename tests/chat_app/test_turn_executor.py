"""The turn-executor seam: a chat's runs go to the turn process once it is started, else they
run in this process, and whichever executes them, ``send_message`` relays the same events."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import cast

from agent_core.events import AcceptedEvent, DoneEvent, TokenEvent
from chat_app.services.conversation.runs import chat
from chat_app.services.presentation.ui_events import RunChanged
from chat_app.services.runtime.container import App
from chat_app.services.runtime.live import LiveChannel
from chat_app.services.runtime.run_stream import RunHandle
from chat_app.services.runtime.send_order import SendsInFlight
from chat_app.services.runtime.turn_process import TurnProcess


def _app(turn_process: object, live: LiveChannel | None = None) -> App:
    """The seam reads the app's turn process, live channel and sends in flight and hands the
    app on: a stand-in with only those, so no database is touched."""
    return cast(
        App,
        SimpleNamespace(
            turn_process=turn_process, live=live or LiveChannel(), sends_in_flight=SendsInFlight()
        ),
    )


def test_the_executor_is_the_turn_process_only_once_it_serves(monkeypatch) -> None:
    turns = TurnProcess()
    app = _app(turns)
    assert chat.executor(app) == chat.InProcess(app)  # not started: no child in a test
    monkeypatch.setattr(turns, "serves", lambda: True)
    assert chat.executor(app) is turns


class _Recording:
    """An executor that answers every run with a fixed stream and notes what it was asked."""

    def __init__(self, owned: bool = False) -> None:
        self.calls: list[tuple] = []
        self.owned = owned

    def serves(self) -> bool:
        return True

    async def _run(self, handle: RunHandle):
        handle.owned = self.owned  # out of band, before the first event
        yield TokenEvent(text="hello")
        yield DoneEvent()

    def send(self, owner, thread_id, text, client_id, *, handle, after_unstored=False):
        self.calls.append(("send", owner, thread_id, text, client_id))
        return self._run(handle)

    def resume(self, owner, thread_id, *, cut, handle):
        self.calls.append(("resume", owner, thread_id, cut))
        return self._run(handle)


async def test_send_and_resume_go_through_the_executor() -> None:
    recording = _Recording()
    app = _app(recording)
    sent = [event async for event in chat.send_message(app, "owner", "thread", "hi", "c1")]
    resumed = [event async for event in chat.resume_queued(app, "owner", "thread", cut=True)]
    assert recording.calls == [
        ("send", "owner", "thread", "hi", "c1"),
        ("resume", "owner", "thread", True),
    ]
    # Not the owner's thread: the events pass through, none is swallowed.
    assert sent == resumed == [TokenEvent(text="hello"), DoneEvent()]


async def test_only_a_run_its_handle_calls_owned_reaches_the_threads_other_tabs() -> None:
    """Whether the thread is the sender's travels on the run's handle, not in its stream:
    the page and the other tabs get the same events, and a stranger's run reaches no tab."""
    for owned in (True, False):
        channel = LiveChannel()
        app = _app(_Recording(owned), live=channel)
        async with channel.watch("thread") as queue:
            shown = [event async for event in chat.send_message(app, "owner", "thread", "hi")]
            published = [queue.get_nowait().event for _ in range(queue.qsize())]
        assert shown == [TokenEvent(text="hello"), DoneEvent()]
        relayed = [RunChanged(running=True), *shown, RunChanged(running=False)]
        assert published == (relayed if owned else [])


class _Held(_Recording):
    """Every run is acknowledged, then holds until ``release`` is set (a long turn)."""

    def __init__(self, acknowledge: bool = True) -> None:
        super().__init__()
        self.acknowledge = acknowledge
        self.release = asyncio.Event()

    async def _run(self, handle: RunHandle):
        handle.owned = self.owned
        if self.acknowledge:
            yield AcceptedEvent(pending_id="p1", client_id="tab.1.x")
        await self.release.wait()
        yield DoneEvent()


async def test_a_resend_while_the_first_send_runs_gets_its_acknowledgement_not_a_run() -> None:
    """The outbox sends again every few seconds until acknowledged: under load each resend
    was a run of its own, and the runs piled up (1,076 in one turn process after a Redis
    cut under 100 chats)."""
    held = _Held()
    app = _app(held)
    first = chat.send_message(app, "owner", "thread", "hi", "tab.1.x")
    assert await anext(first) == AcceptedEvent(pending_id="p1", client_id="tab.1.x")
    resends = [  # each within a second, not once the first's turn is over
        await asyncio.wait_for(
            _drain(chat.send_message(app, "owner", "thread", "hi", "tab.1.x")), 1
        )
        for _ in range(3)
    ]
    assert resends == [[AcceptedEvent(pending_id="p1", client_id="tab.1.x")]] * 3
    held.release.set()
    assert [event async for event in first] == [DoneEvent()]
    assert len(held.calls) == 1
    # Another owner's send under the same id is not taken for it.
    other = chat.send_message(app, "someone else", "thread", "hi", "tab.1.x")
    assert await anext(other) == AcceptedEvent(pending_id="p1", client_id="tab.1.x")
    await other.aclose()
    assert len(held.calls) == 2


async def test_a_resend_waiting_on_a_send_that_ends_unacknowledged_runs_itself() -> None:
    held = _Held(acknowledge=False)
    app = _app(held)
    first = asyncio.create_task(_drain(chat.send_message(app, "o", "t", "hi", "tab.1.x")))
    await asyncio.sleep(0)
    resend = asyncio.create_task(_drain(chat.send_message(app, "o", "t", "hi", "tab.1.x")))
    await asyncio.sleep(0.01)
    assert len(held.calls) == 1  # the resend waits for the first
    held.release.set()
    assert await first == [DoneEvent()]
    assert await resend == [DoneEvent()]
    assert len(held.calls) == 2
    assert len(app.sends_in_flight) == 0


async def _drain(events) -> list:
    return [event async for event in events]
