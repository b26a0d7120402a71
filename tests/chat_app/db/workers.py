"""Code that reliability tests run in other processes (spawned, so it must be importable).

``python -m tests.chat_app.db.workers reset URL THREAD_ID KILL_AT`` performs one reset of
the thread inside its turn lock and SIGKILLs itself at ``KILL_AT`` (a step name of
:meth:`SqlStore.commit_reset`'s fault hook, ``handoff_generated`` before the commit, or
``none``). ``... workers hold URL THREAD_ID`` holds the thread's turn lock until its
stdin gets a line. ``... workers turn OWNER THREAD_ID TEXT`` sends a message through the chat
service (database from ``REFLEX_DB_URL``), prints ``started`` at the first streamed token and
the last event as JSON at the end. ``... workers resume_cut OWNER THREAD_ID`` answers a turn
a crash cut once more, as start-up does (``started`` at the first token).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys

from agent_core import NewMessage
from chat_app.db.engine import get_engine
from chat_app.db.store import SqlStore
from chat_app.settings import read_settings

KILL_POINTS = [
    "handoff_generated",
    "boundary_written",
    "session_opened",
    "pending_delivered",
    "committed",
]


def _store(url: str) -> SqlStore:
    """The store on ``url`` with this process's turn leases (``BATON_TURN_LEASE``)."""
    return SqlStore(get_engine(url), lease_seconds=read_settings().turn_lease)


def send_pending(url: str, thread_id: str, client: str, count: int) -> None:
    """Enqueue ``count`` messages named ``{client}-{i:03d}`` in order."""
    store = _store(url)
    for i in range(count):
        store.enqueue_pending(thread_id, f"{client}-{i:03d}")


def reset_once(url: str, thread_id: str, kill_at: str) -> None:
    store = _store(url)

    def hook(step: str) -> None:
        if step == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)

    store._fault_hook = hook
    with store.turn_lock(thread_id):
        old = store.current_session(thread_id)
        handoff = {"session_number": old.number, "current_state_summary": "working"}
        hook("handoff_generated")
        store.commit_reset(
            thread_id,
            old_session_id=old.id,
            trigger="threshold",
            utilization=0.82,
            model="simulator",
            handoff=handoff,
            handoff_path=f"HANDOFF-{old.number}.md",
            handoff_markdown=f"# Handoff {old.number}\n",
            context=[NewMessage(role="handoff", content=f"handoff {old.number}")],
        )


def hold_turn_lock(url: str, thread_id: str) -> None:
    """Take the thread's turn lock, say so on stdout, release it when stdin gets a line."""
    store = _store(url)
    with store.turn_lock(thread_id):
        print("locked", flush=True)
        sys.stdin.readline()


def run_turn(owner: str, thread_id: str, text: str) -> None:
    from chat_app.root import root
    from chat_app.services.conversation.runs import chat

    app = root()  # this process's app, from the environment's settings

    async def main() -> None:
        last, started = None, False
        async for event in chat.send_message(app, owner, thread_id, text):
            if event.type == "token" and not started:
                started = True
                print("started", flush=True)
            last = event
        print(json.dumps(last.model_dump() if last else None), flush=True)

    asyncio.run(main())


def resume_cut_turn(owner: str, thread_id: str) -> None:
    """What start-up does for a thread whose turn a crash cut, in the foreground: take it
    over and answer its message once more; prints ``started`` at the first streamed token."""
    from chat_app.root import root
    from chat_app.services.conversation.runs import chat, cut_turns

    app = root()  # this process's app, from the environment's settings

    async def main() -> None:
        if not await asyncio.to_thread(cut_turns.take_over, app, thread_id):
            print("nothing to resume", flush=True)
            return
        started = False
        async for event in chat.resume_queued(app, owner, thread_id, cut=True):
            if event.type == "token" and not started:
                started = True
                print("started", flush=True)
        print("done", flush=True)

    asyncio.run(main())


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "reset":
        reset_once(*args)
        print("reset complete")
    elif command == "hold":
        hold_turn_lock(*args)
    elif command == "turn":
        run_turn(*args)
    elif command == "resume_cut":
        resume_cut_turn(*args)
    else:
        raise SystemExit(f"unknown command {command}")
