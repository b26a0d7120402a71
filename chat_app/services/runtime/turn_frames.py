"""What a web worker and its turn process say to each other (:mod:`.turn_process` says why):
requests one way, each run's events and its end the other way.

Every frame is a small frozen dataclass, pickled behind a 4-byte length by
``turn_process.Channel``; both ends are this code base, so a frame of a kind the other end
does not know cannot arrive.
"""

from __future__ import annotations

from dataclasses import dataclass

from chat_app.services.presentation.ui_events import UiEvent

__all__ = [
    "SendRun",
    "ResumeRun",
    "StartRun",
    "CloseRun",
    "StopThread",
    "Request",
    "RunOwned",
    "RunEvent",
    "RunFailed",
    "RunEnded",
    "Loaded",
    "Reply",
    "ChildLost",
]


# The worker's requests ------------------------------------------------------------------
@dataclass(frozen=True)
class SendRun:
    """Send ``text`` to ``thread_id`` for ``owner`` (``chat.send_here``); the run's frames
    come back under ``run``."""

    run: int
    owner: str
    thread_id: str
    text: str
    client_id: str | None
    after_unstored: bool = False


@dataclass(frozen=True)
class ResumeRun:
    """Resume ``thread_id``'s queued messages for ``owner`` (``chat.resume_here``); the run's
    frames come back under ``run``."""

    run: int
    owner: str
    thread_id: str
    cut: bool


#: A request that starts a run.
StartRun = SendRun | ResumeRun


@dataclass(frozen=True)
class CloseRun:
    """The tab stopped reading run ``run``: cancel it, as closing its stream here would."""

    run: int


@dataclass(frozen=True)
class StopThread:
    """Stop was pressed on ``thread_id``: forwarded at once (it is counted on the row too)."""

    thread_id: str


Request = SendRun | ResumeRun | CloseRun | StopThread


# The turn process's replies ---------------------------------------------------------------
@dataclass(frozen=True)
class RunOwned:
    """Run ``run``'s thread is its sender's (its ``RunHandle.owned``): sent before the run's
    first event, so the worker relays the run to the thread's other tabs."""

    run: int


@dataclass(frozen=True)
class RunEvent:
    """One event of run ``run``, as the run's stream yielded it (pydantic models pickle
    as they are)."""

    run: int
    event: UiEvent


@dataclass(frozen=True)
class RunFailed:
    """Run ``run`` raised; ``error`` says what, in words fit for the user."""

    run: int
    error: str


@dataclass(frozen=True)
class RunEnded:
    """Run ``run`` ended as it should."""

    run: int


@dataclass(frozen=True)
class Loaded:
    """The child has loaded (its app built, its tokenizers read) and takes requests: what it
    holds now is what a fresh child holds (the worker's idle replacement measures from it)."""


Reply = RunOwned | RunEvent | RunFailed | RunEnded | Loaded


@dataclass(frozen=True)
class ChildLost:
    """Never sent: the worker puts it on the queue of each run the dead child had."""
