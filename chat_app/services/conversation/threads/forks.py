"""Fork a chat at one of its user messages: a new chat holding everything before it, whose
next message is the edited text (queued, so the chat page answers it on load)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import select

from agent_core import StoreError, validate_user_message
from chat_app.db import repo
from chat_app.db.models import Message
from chat_app.services.conversation.threads.chats import MAX_TITLE, owned_thread
from chat_app.services.runtime.backend import Backend

__all__ = ["ForkOrigin", "fork_at", "fork_origin", "user_message_text"]


@dataclass(frozen=True)
class ForkOrigin:
    """The chat a fork was made from, when its owner still has it."""

    thread_id: str
    title: str
    seq: int


def user_message_text(app: Backend, owner: str | None, thread_id: str, seq: int) -> str | None:
    """The text of the owner's user message ``seq`` (what a fork starts editing)."""
    if owned_thread(app, owner, thread_id) is None:
        return None
    with app.read() as db:
        row = db.exec(
            select(Message).where(
                Message.thread_id == thread_id, Message.seq == seq, Message.role == "user"
            )
        ).first()
        return None if row is None else row.content


def fork_at(app: Backend, owner: str, thread_id: str, seq: int, text: str) -> str | None:
    """Fork the owner's chat before its user message ``seq`` and queue ``text`` as the
    fork's next message; the new chat's id, or None when the chat is not the owner's.

    Raises :class:`agent_core.errors.MessageRejected` for a text no chat accepts (nothing is
    created) and :class:`agent_core.errors.StoreError` when ``seq`` is no user message.
    """
    text = validate_user_message(text)
    origin = owned_thread(app, owner, thread_id)
    if origin is None:
        return None
    with app.write() as db:
        fork = repo.create_thread(
            session=db,
            owner=owner,
            assistant_id=origin.assistant_id,
            title=f"{origin.title} (fork)"[:MAX_TITLE],
        )
        fork.forked_from_id, fork.forked_from_seq = origin.id, seq
        db.add(fork)
        db.commit()
        fork_id = fork.id
    store = app.store
    try:
        store.fork_thread(thread_id, fork_id, before_seq=seq)
    except StoreError:
        with app.write() as db:
            repo.delete_thread(session=db, thread_id=fork_id)
        raise
    store.enqueue_pending(fork_id, text)
    return fork_id


def fork_origin(app: Backend, owner: str | None, thread_id: str) -> ForkOrigin | None:
    """Where the owner's chat was forked from, if it is a fork whose origin still exists."""
    fork = owned_thread(app, owner, thread_id)
    if fork is None or fork.forked_from_id is None:
        return None
    origin = owned_thread(app, owner, fork.forked_from_id)
    if origin is None:
        return None
    return ForkOrigin(thread_id=origin.id, title=origin.title, seq=fork.forked_from_seq or 0)
