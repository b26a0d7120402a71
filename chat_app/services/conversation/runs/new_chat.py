"""A new chat: nothing is stored until its first message, and then both at once.

"New chat" opens a draft page that stores nothing. :func:`start_chat` checks the first
message as a send would (size, content, whether it fits the assistant's model), then creates
the thread, named after the message, and queues the message on it. The chat page that opens
next finds it queued and answers it (``resume_queued``), so the message is stored before the
browser navigates anywhere and cannot be lost on the way.
"""

from __future__ import annotations

from agent_core import ConfigurationError
from chat_app.db import repo
from chat_app.db.models import ImportedTranscript
from chat_app.services.conversation.runs.fits import fits_or_raise, validate_message
from chat_app.services.conversation.threads.importing import imported_label
from chat_app.services.conversation.threads.titles import title_from_message
from chat_app.services.presentation.timeline import model_label
from chat_app.services.presentation.views import AssistantChoice
from chat_app.services.runtime import runtime
from chat_app.services.runtime.backend import Backend

__all__ = ["start_chat", "follow_up", "has_chats", "chat_assistant"]


def has_chats(app: Backend, owner: str) -> bool:
    """Whether the owner has any chat with a message in it (else: a first visit)."""
    with app.read() as db:
        return bool(repo.list_threads(session=db, owner=owner, limit=1, with_messages=True))


def start_chat(
    app: Backend,
    owner: str,
    text: str,
    *,
    client_id: str | None = None,
    assistant_id: str | None = None,
) -> str:
    """Create a chat holding ``text`` as its first (queued) message; returns its id.

    The same ``client_id`` again returns the chat it created, so a retried send makes one.
    Raises :class:`~agent_core.errors.MessageRejected` (nothing stored) for a message a send
    would refuse. An assistant whose model cannot run still gets the chat: the message waits
    queued, and the chat page says why, as a send to such a chat does.
    """
    text = validate_message(text)
    # Read and check first; the write lock (SQLite has one) is taken only to create the
    # chat. Held over the setup below, which opens sessions of its own, it had every other
    # writer of the worker wait on a connection this one waited for.
    with app.read() as db:
        if client_id:  # sent again (no acknowledgement came): the chat it already made
            known = repo.thread_for_client_message(session=db, owner=owner, client_id=client_id)
            if known is not None:
                return known
        assistant = (
            repo.get_assistant(session=db, assistant_id=assistant_id) if assistant_id else None
        ) or repo.first_assistant(session=db)
    if assistant is None:  # the very first chat: the default assistant is made with it
        with app.write(expire_on_commit=False) as db:
            assistant = repo.ensure_default_assistant(session=db)
    try:
        setup, _ = runtime.turn_setup(app, "", assistant)
    except ConfigurationError:
        setup = None
    if setup is not None:
        fits_or_raise(setup, text)
    with app.write(expire_on_commit=False) as db:
        if client_id:  # the same send, retried meanwhile
            known = repo.thread_for_client_message(session=db, owner=owner, client_id=client_id)
            if known is not None:
                return known
        thread = repo.create_thread(
            session=db, owner=owner, assistant_id=assistant.id, title=title_from_message(text)
        )
        thread_id = thread.id
    app.store.enqueue_pending(thread_id, text, client_id=client_id)
    return thread_id


def follow_up(app: Backend, owner: str, thread_id: str, text: str, client_id: str) -> bool:
    """Queue ``text`` on the chat the tab's previous send just started (sent before the
    browser opened it, it belongs there, not in a chat of its own); the chat's page answers
    it after the first. False when the chat is not the owner's. Raises
    :class:`~agent_core.errors.MessageRejected` as :func:`start_chat` does."""
    text = validate_message(text)
    with app.read() as db:
        if repo.get_thread(session=db, thread_id=thread_id, owner=owner) is None:
            return False
    app.store.enqueue_pending(thread_id, text, client_id=client_id)
    return True


def chat_assistant(app: Backend, owner: str, thread_id: str) -> AssistantChoice | None:
    """The assistant the owner's chat runs on (None for a chat that is not theirs)."""
    with app.read() as db:
        thread = repo.get_thread(session=db, thread_id=thread_id, owner=owner)
        assistant = (
            repo.get_assistant(session=db, assistant_id=thread.assistant_id) if thread else None
        )
        if assistant is None:
            return None
        record = db.get(ImportedTranscript, thread_id)
        if record is not None:  # answered elsewhere: the header names where, not an assistant
            return AssistantChoice(id=assistant.id, name="", model_label=imported_label(record))
        return AssistantChoice(
            id=assistant.id, name=assistant.name, model_label=model_label(assistant.model)
        )
