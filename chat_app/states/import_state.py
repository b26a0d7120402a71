"""Importing a session file (the chats page) and replaying an imported chat (its page)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import reflex as rx

from chat_app.root import root
from chat_app.services.conversation import threads as thread_service
from chat_app.services.presentation.counts import counted
from chat_app.services.presentation.failures import describe_failure
from chat_app.states.identity import IdentityState
from chat_app.states.workspace_state import _thread_id

__all__ = ["ImportState", "ReplayState", "IMPORT_UPLOAD_ID"]

IMPORT_UPLOAD_ID = "import-session"

# Cancel flags of the replays running in this process, by tab (a tab's events all reach the
# worker its websocket is on, so Cancel finds the flag here).
_CANCELS: dict[str, threading.Event] = {}


class ImportState(IdentityState):
    """The "Import a session" dialog of the chats page."""

    import_error: str = ""
    importing: bool = False

    @rx.event
    async def upload(self, files: list[rx.UploadFile]):
        if not files:
            self.import_error = "Choose one session file to import."
            return
        upload = files[0]
        self.importing, self.import_error = True, ""
        yield
        data = await upload.read(thread_service.import_max_bytes(root()) + 1)
        try:
            thread_id = await asyncio.to_thread(
                thread_service.import_session, root(), self._owner(), upload.name or "session", data
            )
        except thread_service.ImportRejected as refused:
            self.importing, self.import_error = False, str(refused)
            yield rx.clear_selected_files(IMPORT_UPLOAD_ID)
            return
        self.importing = False
        yield rx.clear_selected_files(IMPORT_UPLOAD_ID)
        yield rx.redirect(f"/t/{thread_id}")

    @rx.event
    def rejected(self, _rejections: list[Any]) -> None:
        limit = thread_service.import_max_bytes(root()) / 1048576
        self.import_error = f"That file cannot be imported: one file, at most {limit:.0f} MB."


class ReplayState(IdentityState):
    """An imported chat: what it is, and its "Replay with…" runs and chart."""

    imported: bool = False
    source_label: str = ""
    assistants: list[dict[str, str]] = []
    assistant_id: str = ""
    running: bool = False
    progress: int = 0
    progress_label: str = ""
    replay_error: str = ""
    runs: list[thread_service.ReplayView] = []
    chosen: str = ""
    chart: list[dict[str, Any]] = []
    threshold_tokens: int = 0
    results_open: bool = False
    # "Replay at <agent>'s compactions": the agent's summary beside Baton's handoff per cut.
    cuts_label: str = ""
    cuts: list[thread_service.AgentCutView] = []
    cuts_open: bool = False
    cuts_running: bool = False
    cuts_error: str = ""

    def _thread(self) -> str:
        return _thread_id(self.router.url.path)

    @rx.event
    def load(self) -> None:
        thread_id = self._thread()
        owner = self._owner()
        record = thread_service.imported_record(root(), thread_id) if thread_id else None
        if record is None or thread_service.owned_thread(root(), owner, thread_id) is None:
            self.imported, self.runs, self.chart = False, [], []
            return
        self.imported = True
        agent = thread_service.agent_name(record)
        self.source_label = (
            f"Imported from {agent} · {record.filename} · "
            f"{counted(record.message_count, 'message')} · "
            f"{counted(len(record.compactions), 'compaction')} by {agent}"
        )
        self.assistants = [
            {"id": a.id, "label": f"{a.name} · {a.model_label}"}
            for a in thread_service.list_assistant_choices(root())
        ]
        if not self.assistant_id or all(a["id"] != self.assistant_id for a in self.assistants):
            self.assistant_id = self.assistants[0]["id"] if self.assistants else ""
        self.running, self.replay_error, self.results_open = False, "", False
        self.progress_label = ""
        self.cuts_label = f"Replay at {agent}'s compactions" if record.compactions else ""
        self.cuts, self.cuts_open, self.cuts_running, self.cuts_error = [], False, False, ""
        self._show_runs(None)

    def _show_runs(self, chosen: str | None) -> None:
        owner, thread_id = self._owner(), self._thread()
        self.runs = thread_service.list_replays(root(), owner, thread_id)
        ids = [r.id for r in self.runs]
        self.chosen = chosen if chosen in ids else (ids[-1] if ids else "")
        self.chart = thread_service.chart_rows(root(), owner, thread_id, self.chosen or None)
        run = next((r for r in self.runs if r.id == self.chosen), None)
        self.threshold_tokens = int(run.window * run.reset_threshold) if run else 0

    @rx.event
    def set_assistant(self, assistant_id: str) -> None:
        self.assistant_id = assistant_id

    @rx.event
    def set_results_open(self, value: bool) -> None:
        self.results_open = value

    @rx.event
    def set_cuts_open(self, value: bool) -> None:
        self.cuts_open = value

    @rx.event(background=True)
    async def compare_cuts(self) -> None:
        """Cut where the original agent compacted and show both texts at each cut."""
        async with self:
            if self.cuts_running or not self.cuts_label:
                return
            self.cuts_running, self.cuts_error = True, ""
            owner, thread_id = self._owner(), self._thread()
        try:
            views = await asyncio.to_thread(
                thread_service.agent_cut_views, root(), owner, thread_id
            )
        except Exception as exc:  # a comparison that fails must say so, not spin forever
            async with self:
                self.cuts_running = False
                self.cuts_error = f"The comparison failed: {describe_failure(exc)}"
            return
        async with self:
            self.cuts, self.cuts_running, self.cuts_open = views, False, True

    @rx.event
    def choose(self, replay_id: str) -> None:
        self._show_runs(replay_id)

    @rx.event
    def cancel(self) -> None:
        flag = _CANCELS.get(self.router.session.client_token)
        if flag is not None:
            flag.set()
            self.progress_label = "Cancelling…"

    @rx.event(background=True)
    async def start(self) -> None:
        async with self:
            if self.running or not self.imported or not self.assistant_id:
                return
            self.running, self.progress, self.replay_error = True, 0, ""
            self.progress_label = "Starting…"
            token = self.router.session.client_token
            owner, thread_id, assistant_id = self._owner(), self._thread(), self.assistant_id
        flag = threading.Event()
        _CANCELS[token] = flag
        done = {"n": 0, "total": 1}

        def progress(n: int, total: int) -> None:
            done["n"], done["total"] = n, max(total, 1)

        job = asyncio.create_task(
            asyncio.to_thread(
                thread_service.run_replay,
                root(),
                owner,
                thread_id,
                assistant_id,
                progress=progress,
                cancelled=flag.is_set,
            )
        )
        try:
            while not job.done():
                await asyncio.wait({job}, timeout=0.3)
                async with self:
                    if not flag.is_set():
                        self.progress = int(100 * done["n"] / done["total"])
                        self.progress_label = (
                            f"Replaying message {done['n']:,} of {done['total']:,}"
                        )
            replay_id = job.result()
        except thread_service.ReplayCancelled:
            async with self:
                self.running, self.progress_label = False, "Replay cancelled; nothing was kept."
            return
        except Exception as exc:  # a replay that fails must say so, not spin forever
            async with self:
                self.running, self.progress_label = False, ""
                self.replay_error = f"The replay failed: {describe_failure(exc)}"
            return
        finally:
            _CANCELS.pop(token, None)
        async with self:
            self.running, self.progress, self.progress_label = False, 100, ""
            if replay_id is None:
                self.replay_error = "This chat or that assistant no longer exists."
                return
            self._show_runs(replay_id)
            self.results_open = True
