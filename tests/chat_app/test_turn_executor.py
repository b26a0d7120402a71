"""The turn-executor seam: a chat's runs go to the turn process once it is started, else they
run in this process, and whichever executes them, ``send_message`` relays the same events."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

from agent_core.events import DoneEvent, TokenEvent
from chat_app.services.conversation.runs import chat
from chat_app.services.runtime.container import App
from chat_app.services.runtime.run_stream import Owned
from chat_app.services.runtime.turn_process import TurnProcess


def _app(turn_process: object) -> App:
    """The seam reads the app's turn process and hands the app on: a stand-in with only
    that, so no database is touched."""
    return cast(App, SimpleNamespace(turn_process=turn_process))


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
    from chat_app.services.conversation.runs import thread_runs
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
