"""What a run's stream yields to the page: the page's events
(:data:`chat_app.services.presentation.ui_events.UiEvent`, made of the engine's in
``run_events.Translator``), and first, for a run on a thread that is its sender's,
:class:`Owned`.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Protocol

from chat_app.services.presentation.ui_events import UiEvent

__all__ = ["Owned", "RunStream", "TurnExecutor"]


@dataclass(frozen=True)
class Owned:
    """The first event of a run (``chat.send_here``, ``resume_here``) whose thread is the
    owner's: only such a run is relayed to the thread's other tabs. Never shown."""


#: An async generator, not any async iterator: its consumers close it early
#: (``contextlib.aclosing``) when a tab stops listening, and the run must stop with it.
RunStream = AsyncGenerator[Owned | UiEvent, None]


class TurnExecutor(Protocol):
    """Where a chat's runs execute: this process (``chat.InProcess``) or the turn process
    beside the web worker (``turn_process.EXECUTOR``). Both stream the same events."""

    def send(
        self,
        owner: str,
        thread_id: str,
        text: str,
        client_id: str | None,
        *,
        after_unstored: bool = False,
    ) -> RunStream: ...

    def resume(self, owner: str, thread_id: str, *, cut: bool) -> RunStream: ...
