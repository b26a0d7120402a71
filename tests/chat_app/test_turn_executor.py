"""The turn-executor seam: a chat's runs go to the turn process once it is started, else they
run in this process, and whichever executes them, ``send_message`` relays the same events."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

from agent_core.events import DoneEvent, TokenEvent
from chat_app.services.conversation.runs import chat
from chat_app.services.presentation.ui_events import RunChanged
from chat_app.services.runtime.container import App
from chat_app.services.runtime.live import LiveChannel
from chat_app.services.runtime.run_stream import RunHandle
from chat_app.services.runtime.turn_process import TurnProcess


def _app(turn_process: object, live: LiveChannel | None = None) -> App:
    """The seam reads the app's turn process and live channel and hands the app on: a
    stand-in with only those, so no database is touched."""
    return cast(App, SimpleNamespace(turn_process=turn_process, live=live or LiveChannel()))


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
