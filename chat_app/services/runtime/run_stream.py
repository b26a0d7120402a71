"""What a run's stream yields to the page: the page's events
(:data:`chat_app.services.presentation.ui_events.UiEvent`, made of the engine's in
``run_events.Translator``), and nothing else. What the run says of itself beside them (whether
its thread is its sender's) travels out of band, on the :class:`RunHandle` it was handed.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Protocol

from chat_app.services.presentation.ui_events import UiEvent

__all__ = ["RunHandle", "RunStream", "TurnExecutor"]


@dataclass(eq=False)
class RunHandle:
    """What a run (``chat.send_here``, ``resume_here``, or either in the turn process) says
    of itself beside its events. ``owned``: its thread is its sender's, so it is relayed to
    the thread's other tabs; the run sets it before its first event."""

    owned: bool = False


#: An async generator, not any async iterator: its consumers close it early
#: (``contextlib.aclosing``) when a tab stops listening, and the run must stop with it.
RunStream = AsyncGenerator[UiEvent, None]


class TurnExecutor(Protocol):
    """Where a chat's runs execute: this process (``chat.InProcess``) or the turn process
    beside the web worker (``turn_process.EXECUTOR``). Both stream the same events, and set
    the same facts on the run's ``handle``."""

    def send(
        self,
        owner: str,
        thread_id: str,
        text: str,
        client_id: str | None,
        *,
        handle: RunHandle,
        after_unstored: bool = False,
    ) -> RunStream: ...

    def resume(self, owner: str, thread_id: str, *, cut: bool, handle: RunHandle) -> RunStream: ...
