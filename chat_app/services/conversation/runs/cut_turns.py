"""Turns cut by a crash, and which of them are answered again.

What Baton does (the README says the same):

- A queued message (no turn had taken it) is always answered: at start-up, and whenever its
  chat is opened.
- A message a turn had taken when its process died (``kill -9``, the OOM killer, a power
  cut) and left without an answer is answered once more, at the next start-up, with a note
  in the chat saying so. Never twice: the thread's mark (``thread.answering_seq``, set when a
  turn takes messages, cleared when it lets the thread go) is removed before that second
  attempt, so a message that kills the process cannot crash-loop the server. What the cut
  turn had done (replies, tool results, files) is kept, and the model goes on from there.
  A message the user sent meanwhile waits until the cut one is answered (``answers_first``
  in :mod:`agent_core.strategies._awaiting`).
- A message the crash left answered, a turn that was stopped or failed with an error, and a
  regenerated reply are left as they are (Regenerate reply asks again).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection, Sequence

from agent_core import NewMessage, StoredMessage
from agent_core.strategies import TURN_RESUMED
from chat_app.db import repo
from chat_app.db.lease import release_leases_of
from chat_app.services.conversation.runs import chat
from chat_app.services.runtime.container import App

__all__ = [
    "RESUMED_NOTE",
    "needs_answer",
    "take_over",
    "resume_cut_turns",
    "resume_after_turn_process_loss",
]

_log = logging.getLogger(__name__)

RESUMED_NOTE = (
    "The server stopped while answering this message; it is answered once more. "
    "Should that be cut off too, it is not tried again: Regenerate reply asks "
    "again."
)


def needs_answer(rows: Sequence[StoredMessage], seq: int) -> bool:
    """Whether the turn that took the message at ``seq`` left it without its answer: no
    assistant row after it that ends a turn (one without tool calls) (pure)."""
    return not any(row.seq > seq and row.role == "assistant" and not row.tool_calls for row in rows)


def take_over(app: App, thread_id: str) -> bool:
    """Under the thread's turn lock (so a turn still running elsewhere ends first): take
    the cut turn's mark, and when its message is still unanswered note in the chat that it
    is answered once more. True when a resume is due."""
    store = app.store
    with store.turn_lock(thread_id):
        seq = store.take_cut_turn(thread_id)
        if seq is None:  # the turn that held the mark was alive, and has ended
            return False
        session = store.current_session(thread_id)
        if not needs_answer(store.messages(session.id), seq):
            return False
        store.append(
            thread_id,
            session.id,
            [NewMessage(role="event", content=RESUMED_NOTE, meta={"event": TURN_RESUMED})],
        )
        return True


async def resume_cut_turns(app: App, threads: Collection[str] | None = None) -> frozenset[str]:
    """At start-up (or of ``threads`` only): answer once more each message a crash cut the
    answer of (see the module); returns the threads being answered (their queues go with
    them)."""
    store = app.store
    marked = await asyncio.to_thread(store.cut_turns)
    resumed = set()
    for thread_id, owner in marked:
        if threads is not None and thread_id not in threads:
            continue
        try:
            if await asyncio.to_thread(take_over, app, thread_id):
                resumed.add(thread_id)
                chat.resume_detached(app, owner, thread_id, cut=True)
        except Exception:  # one thread's failure must not keep the others waiting
            _log.exception("answering the cut turn of thread %s again failed", thread_id)
    return frozenset(resumed)


async def resume_after_turn_process_loss(app: App, tag: str, threads: frozenset[str]) -> None:
    """A worker's turn process died (``kill -9``, the OOM killer) with runs of ``threads``
    going: free its turn leases (tagged ``tag``) and answer once more the messages it cut,
    as a start-up does after a crash, and the messages queued behind them. Without it they
    waited for Regenerate (21 of 40 first messages after a kill under load)."""
    freed = await asyncio.to_thread(release_leases_of, app.engine, tag)
    resumed = await resume_cut_turns(app, threads)
    with app.read() as db:
        waiting = [
            (t.owner, t.id)
            for t in repo.threads_with_pending(session=db)
            if t.id in threads and t.id not in resumed
        ]
    for owner, thread_id in waiting:  # queued behind a run that was lost: answered now
        chat.resume_detached(app, owner, thread_id)
    _log.warning(
        "the turn process died: %d turn leases freed, %d cut turns answered again, "
        "%d queues resumed",
        freed,
        len(resumed),
        len(waiting),
    )
