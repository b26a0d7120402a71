"""What the user typed while Claude Code worked: its input queue, read from the session log.

Claude Code journals its input queue as ``queue-operation`` records::

    {"type": "queue-operation", "operation": "enqueue", "content": str | blocks,
     "sessionId": ..., "timestamp": ...}

``enqueue`` when the user types while the agent works; then ``dequeue`` (taken off to be
sent as the next prompt, which follows as an ordinary ``user`` record), ``remove`` (taken
out of the queue: either sent into the running turn, which newer builds write as an
``attachment`` record of type ``queued_command``, or taken back by the user) and ``popAll``
(the user pulled everything queued back into the input box to edit). The last three carry
no content, or the text they took out.

:func:`kept_enqueues` decides, over the whole log, which enqueued texts become user messages
(marked ``queued``) at the place they were typed: every one, except

* one that reached the agent as an ordinary ``user`` record later (dequeued into the next
  prompt): that record is kept, so the request is there once;
* one that reached it as a ``queued_command`` attachment: the attachment's message is kept
  instead, where the agent saw it (:func:`attachment_prompt`);
* one taken back (``remove``/``popAll``) and never sent. A ``remove`` without content names
  no entry: it was a send into the running turn when a ``queued_command`` attachment follows
  it (the attachment says which), else a take-back, dropped only when one entry was waiting
  (never the oldest by guess: a typed message the agent saw must not be lost);
* Claude Code's own input through the same queue (task notifications, commands): not the user.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

__all__ = [
    "QUEUE_RECORD",
    "ATTACHMENT_RECORD",
    "content_text",
    "attachment_prompt",
    "kept_enqueues",
]

QUEUE_RECORD = "queue-operation"
ATTACHMENT_RECORD = "attachment"


def content_text(content: Any) -> str:
    """The text of a queue record's or a message's content (a string, or text blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            block.get("text", "")
            for block in content
            if isinstance(block, dict) and block.get("type") == "text"
        )
    return ""


def attachment_prompt(record: dict[str, Any]) -> tuple[str, str | None] | None:
    """For a ``queued_command`` attachment: (its prompt, why it is not the user or None).
    None for any other attachment (file contents, reminders: harness context)."""
    attachment = record.get("attachment")
    if not isinstance(attachment, dict) or attachment.get("type") != "queued_command":
        return None
    prompt = content_text(attachment.get("prompt"))
    origin = attachment.get("origin")
    kind = origin.get("kind") if isinstance(origin, dict) else None
    if kind not in (None, "human"):  # an SDK or a hook enqueued it, not someone typing
        return prompt, f"queued_by_{kind}"
    if attachment.get("commandMode") not in (None, "prompt"):
        return prompt, "bash_mode"
    return prompt, None


def _same(one: str, other: str) -> bool:
    return " ".join(one.split()) == " ".join(other.split())


def kept_enqueues(
    records: Iterable[tuple[int, dict[str, Any]]], not_user: Callable[[str], str | None]
) -> dict[int, str]:
    """The line of each ``enqueue`` record to keep as a queued user message, with its text.

    ``records`` are (line, record) in file order; ``not_user`` says why a text is not the
    user speaking (Claude Code's own), or None.
    """
    kept: dict[int, str] = {}
    waiting: list[tuple[int, str]] = []  # still in Claude Code's queue, oldest first
    dequeued: list[tuple[int, str]] = []  # about to arrive as the next ordinary prompt
    # Content-less ``remove`` records not yet told apart: one a ``queued_command``
    # attachment follows was a send into the running turn (the attachment names which entry);
    # one none follows was taken back, which is certain only when one entry was waiting.
    unnamed_removes = 0

    def settle() -> None:
        nonlocal unnamed_removes
        if unnamed_removes and len(waiting) == 1:
            kept.pop(waiting.pop()[0], None)
        unnamed_removes = 0  # which entry went is unknown: every typed message stays

    for line, record in records:
        kind = record.get("type")
        found = attachment_prompt(record) if kind == ATTACHMENT_RECORD else None
        if unnamed_removes and kind not in (QUEUE_RECORD, ATTACHMENT_RECORD):
            settle()
        if kind == QUEUE_RECORD:
            operation = record.get("operation")
            text = content_text(record.get("content"))
            if operation == "enqueue":
                waiting.append((line, text))
                if text.strip() and not_user(text) is None:
                    kept[line] = text
            elif operation == "dequeue" and waiting:
                dequeued.append(waiting.pop(0))
            elif operation == "popAll":
                for entry in waiting:  # taken back, unless an attachment shows it was sent
                    kept.pop(entry[0], None)
                waiting = []
            elif operation == "remove" and not text.strip():
                unnamed_removes += 1
            elif operation == "remove":
                match = next((e for e in waiting if _same(e[1], text)), None)
                if match is not None:
                    waiting.remove(match)
                    kept.pop(match[0], None)
        elif found is not None:
            unnamed_removes = max(unnamed_removes - 1, 0)
            for entries in (waiting, dequeued):
                for entry in list(entries):
                    if _same(entry[1], found[0]):
                        entries.remove(entry)
                        kept.pop(entry[0], None)
                        break
        elif kind == "user" and not record.get("isMeta"):
            message = record.get("message")
            text = content_text(message.get("content")) if isinstance(message, dict) else ""
            if text.strip() and not_user(text) is None:
                # The prompt a dequeued message became (or one still waiting, typed again).
                for entries in (dequeued, waiting):
                    entry = next((e for e in entries if _same(e[1], text)), None)
                    if entry is not None:
                        entries.remove(entry)
                        kept.pop(entry[0], None)
                        break
    settle()
    return kept
