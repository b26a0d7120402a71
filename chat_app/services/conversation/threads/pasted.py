"""A message too large to send, kept as a file in the chat's workspace instead.

When a message is refused as too large (:class:`~agent_core.errors.MessageTooLarge`: over the
byte limit, or more than one session of the chat's model holds), the chat offers to attach the
text as ``pasted-N.md`` and send a short message naming it: the agent then reads it with its
file tools, in parts, as it reads any file. The file goes through the same check and the same
single write as an attachment (:func:`chat_app.services.conversation.threads.workspace.attach_files`).
"""

from __future__ import annotations

from collections.abc import Iterable

from chat_app.services.conversation.threads import workspace
from chat_app.services.conversation.threads.chats import owned_thread
from chat_app.services.runtime.backend import Backend

__all__ = ["pasted_name", "next_pasted_name", "attachable", "attach_pasted", "pasted_message"]


def pasted_name(existing: Iterable[str]) -> str:
    """The first ``pasted-N.md`` (N from 1) not among ``existing`` paths (pure)."""
    taken = set(existing)
    number = 1
    while f"pasted-{number}.md" in taken:
        number += 1
    return f"pasted-{number}.md"


def attachable(size_bytes: int) -> bool:
    """Whether a text of ``size_bytes`` (UTF-8) can be attached at all."""
    return 0 < size_bytes <= workspace.MAX_FILE_BYTES


def next_pasted_name(app: Backend, owner: str, thread_id: str) -> str:
    """The name the owner's thread would give a pasted text now ("" for a foreign thread)."""
    if owned_thread(app, owner, thread_id) is None:
        return ""
    return pasted_name(app.store.list_files(thread_id))


def attach_pasted(app: Backend, owner: str, thread_id: str, text: str) -> str:
    """Store ``text`` as the thread's next ``pasted-N.md``; returns its path. Raises
    :class:`~chat_app.services.conversation.threads.workspace.AttachmentRefused` (nothing written) for empty text,
    a text over the attachment size, or a thread the owner does not have."""
    if not text.strip():
        raise workspace.AttachmentRefused(
            "The composer is empty: there is nothing to attach.", code="nothing_to_attach"
        )
    name = next_pasted_name(app, owner, thread_id) or "pasted-1.md"
    (path,) = workspace.attach_files(app, owner, thread_id, [(name, text.encode("utf-8"))])
    return path


def pasted_message(path: str) -> str:
    """The short message sent in place of the pasted text: it names the file."""
    # Its first words name the file: a new chat is titled after them.
    return (
        f"Please read {path}: it holds my message, too large to send here.\n\n"
        f"{workspace.attached_line([path])}"
    )
