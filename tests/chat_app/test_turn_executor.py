"""The turn-executor seam: a chat's runs go to the turn process once it is started, else they
run in this process, and whichever executes them, ``send_message`` relays the same events."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import cast

from agent_core.events import AcceptedEvent, DoneEvent, TokenEvent
from chat_app.services.conversation import chat
from chat_app.services.runtime.container import App
from chat_app.services.runtime.run_stream import Owned
from chat_app.services.runtime.send_order import SendsInFlight
from chat_app.services.runtime.turn_process import TurnProcess


def _app(turn_process: object) -> App:
    """The seam reads the app's turn process and hands the app on: a stand-in with only
    that, so no database is touched."""
    return cast(App, SimpleNamespace(turn_process=turn_process, sends_in_flight=SendsInFlight()))


def test_the_executor_is_the_turn_process_only_once_it_serves(monkeypatch) -> None:
    turns = TurnProcess()
    app = _app(turns)
    assert chat.executor(app) == chat.InProcess(app)  # not started: no child in a test
    monkeypatch.setattr(turns, "serves", lambda: True)
    assert chat.executor(app) is turns


class _Recording:
    """An executor that answers every run with a fixed stream and notes what it was asked."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def serves(self) -> bool:
        return True

    async def _run(self, owned: bool):
        if owned:
            yield Owned()
        yield TokenEvent(text="hello")
        yield DoneEvent()

    def send(self, owner, thread_id, text, client_id, *, after_unstored=False):
        self.calls.append(("send", owner, thread_id, text, client_id))
        return self._run(owned=False)

    def resume(self, owner, thread_id, *, cut):
        self.calls.append(("resume", owner, thread_id, cut))
        return self._run(owned=False)


async def test_send_and_resume_go_through_the_executor() -> None:
    recording = _Recording()
    app = _app(recording)
    sent = [event async for event in chat.send_message(app, "owner", "thread", "hi", "c1")]
    resumed = [event async for event in chat.resume_queued(app, "owner", "thread", cut=True)]
    assert recording.calls == [
        ("send", "owner", "thread", "hi", "c1"),
        ("resume", "owner", "thread", True),
    ]
    # Not the owner's thread (no Owned first): the events pass through, none is swallowed.
    assert sent == resumed == [TokenEvent(text="hello"), DoneEvent()]


async def test_an_owner_marker_is_never_shown_nor_published_to_other_tabs(monkeypatch) -> None:
    """Only a run's first item may be :class:`Owned`; one that comes later (a stream joined
    from two) reaches neither the page nor the thread's other tabs."""
    from chat_app.services.conversation import thread_runs
    from chat_app.services.runtime import live

    published: list[object] = []

    async def publish(thread_id: str, run_id: str, event: object) -> None:
        published.append(event)

    monkeypatch.setattr(live, "publish", publish)

    async def run(owned: bool):
        if owned:
            yield Owned()
        yield TokenEvent(text="hello")
        yield Owned()
        yield DoneEvent()

    for owned in (True, False):
        published.clear()
        shown = [event async for event in thread_runs.relayed("thread", "run-1", run(owned))]
        assert shown == [TokenEvent(text="hello"), DoneEvent()]
        assert not any(isinstance(event, Owned) for event in published)


class _Held(_Recording):
    """Every run is acknowledged, then holds until ``release`` is set (a long turn)."""

    def __init__(self, acknowledge: bool = True) -> None:
        super().__init__()
        self.acknowledge = acknowledge
        self.release = asyncio.Event()

    async def _run(self, owned: bool):
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
