"""A chat as a file: Markdown to read (sessions, dividers and handoffs in order) or JSON with
every stored field. Built a session at a time and bounded: an export travels to the browser
as one download event, so a chat past ``MAX_EXPORT_BYTES`` is refused with the reason.

The Markdown cannot be forged by what it quotes: the export's own structure (headings, the
"**You**" and "**Assistant**" lines, tool calls) is written only by this module, and every
text a user, a model or a tool wrote sits inside a container it cannot leave. A user's
message is a fenced block (verbatim, as typed), a reply, a handoff and a note are block
quotes (every line prefixed, so still rendered as Markdown), a tool call is one line of inline
code; a fence or a code span is longer than any backtick run inside it, and line ends are
normalized first (CommonMark also ends a line at a lone CR)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from agent_core import HandoffArtifact, SessionRecord, StoredMessage
from chat_app.db.models import ReplyFeedback
from chat_app.errors import Refused
from chat_app.services.conversation.threads.chats import owned_thread
from chat_app.services.conversation.threads.feedback import thread_feedback
from chat_app.services.presentation.timeline import model_label, tool_summary
from chat_app.services.runtime.backend import Backend

__all__ = [
    "MAX_EXPORT_BYTES",
    "ExportTooLarge",
    "export_markdown",
    "export_json",
    "export_filename",
]

MAX_EXPORT_BYTES = 8_000_000
_TOOL_RESULT_CHARS = 4_000  # the Markdown is for reading; the JSON keeps every character


class ExportTooLarge(Refused):
    """The chat is larger than an export carries; the message says by how much."""

    default_code = "export_too_large"


def _when(value: datetime | None) -> str:
    if value is None:
        return ""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _sessions(app: Backend, thread_id: str) -> Iterator[tuple[SessionRecord, list[StoredMessage]]]:
    store = app.store
    for session in store.sessions(thread_id):
        yield session, store.messages(session.id)


def _bounded(parts: Iterator[str]) -> str:
    out, size = [], 0
    for part in parts:
        size += len(part.encode())
        if size > MAX_EXPORT_BYTES:
            raise ExportTooLarge(
                f"This chat is larger than the {MAX_EXPORT_BYTES // 1_000_000} MB an export "
                "can carry; nothing was exported."
            )
        out.append(part)
    return "".join(out)


def _divider(session: SessionRecord) -> str:
    heading = f"\n---\n\n## Session {session.number}\n\n"
    facts = [f"started {_when(session.started_at)}"]
    if session.number > 1:
        trigger = {
            "manual": "/handoff",
            "auto": "automatic reset",
            "overflow": "overflow reset",
        }.get(session.trigger, session.trigger)
        if session.utilization is not None:
            trigger += f" at {round(session.utilization * 100)}% of the context window"
        facts.append(trigger)
    text = heading + "_" + " · ".join(facts) + "_\n\n"
    if session.handoff:
        artifact = HandoffArtifact.model_validate(session.handoff)
        body = _lines(artifact.to_markdown()).replace("\n#", "\n###")
        text += f"### Handoff from session {session.number - 1}\n\n{_quoted(body)}"
    return text


_LINE_END = re.compile(r"\r\n?")
_BACKTICKS = re.compile(r"`+")


def _lines(text: str) -> str:
    """``text`` with every line end a ``\\n``: CommonMark ends a line at a lone CR too."""
    return _LINE_END.sub("\n", text)


def _longest_backticks(text: str) -> int:
    return max((len(run) for run in _BACKTICKS.findall(text)), default=0)


def _fenced(text: str) -> str:
    """``text`` verbatim in a fence longer than any backtick run in it (so none closes it)."""
    text = _lines(text)
    fence = "`" * max(3, _longest_backticks(text) + 1)
    return f"{fence}\n{text}\n{fence}\n"


def _quoted(text: str) -> str:
    """``text`` as a block quote, every line inside it: rendered as Markdown, but nothing
    it holds (a heading, a rule, a "**You**" line, an open fence) reaches the page's level."""
    lines = _lines(text).strip("\n").split("\n")
    return "\n".join(f"> {line}" if line.strip() else ">" for line in lines) + "\n\n"


def _code(text: str) -> str:
    """``text`` as inline code on one line, delimited by a backtick run longer than any in it."""
    one_line = " ".join(_lines(text).split())
    ticks = "`" * (_longest_backticks(one_line) + 1)
    return f"{ticks} {one_line} {ticks}"


def _rated(feedback: ReplyFeedback | None) -> str:
    if feedback is None:
        return ""
    said = f"_Rated {'up' if feedback.rating == 'up' else 'down'}_\n\n"
    return said + (_quoted(feedback.note) if feedback.note else "")


def _markdown_rows(rows: list[StoredMessage], feedback: dict[int, ReplyFeedback]) -> Iterator[str]:
    for row in rows:
        when = _when(row.created_at)
        if row.role == "user" and not row.meta.get("carried_over_from"):
            yield f"**You** · {when}\n\n{_fenced(row.content.strip())}\n"
        elif row.role == "assistant":
            if row.content.strip():
                label = " ".join(model_label(row.model).split())  # one line: inline only
                yield (
                    f"**Assistant**{f' ({label})' if label else ''} · {when}\n\n"
                    f"{_quoted(row.content)}{_rated(feedback.get(row.seq))}"
                )
            for call in row.tool_calls:
                summary = tool_summary(call["name"], call.get("args", {}))
                yield f"- Tool call: {_code(summary)}\n\n"
        elif row.role == "tool":
            result = row.content
            if len(result) > _TOOL_RESULT_CHARS:
                result = result[:_TOOL_RESULT_CHARS] + f"\n… ({len(row.content):,} characters)"
            yield f"Result of {_code(row.name or 'tool')}:\n\n{_fenced(result)}\n"
        elif row.role == "event":
            yield _quoted(row.content)


def export_markdown(app: Backend, owner: str | None, thread_id: str) -> str | None:
    """The owner's chat as Markdown, or None when it is not theirs (see the module)."""
    thread = owned_thread(app, owner, thread_id)
    if thread is None:
        return None

    feedback = thread_feedback(app, owner, thread_id)

    def parts() -> Iterator[str]:
        title = " ".join(_lines(thread.title).split()) or "Chat"
        yield f"# {title}\n\n_Exported from Baton {_when(datetime.now(UTC))}_\n"
        for session, rows in _sessions(app, thread_id):
            yield _divider(session)
            yield from _markdown_rows(rows, feedback)

    return _bounded(parts())


def _json_row(row: StoredMessage, feedback: ReplyFeedback | None) -> dict[str, Any]:
    record = row.model_dump(mode="json", exclude={"thread_id", "session_id", "id"})
    if feedback is not None:
        record["feedback"] = {"rating": feedback.rating, "note": feedback.note}
    return record


def export_json(app: Backend, owner: str | None, thread_id: str) -> str | None:
    """The owner's chat as JSON: the thread, then every session with its handoff and all
    of its stored rows (tool calls, results, usage and event markers included)."""
    thread = owned_thread(app, owner, thread_id)
    if thread is None:
        return None
    head = {
        "format": "baton-chat",
        "version": 1,
        "title": thread.title,
        "exported_at": datetime.now(UTC).isoformat(),
        "forked_from": thread.forked_from_id,
    }
    feedback = thread_feedback(app, owner, thread_id)

    def parts() -> Iterator[str]:
        yield json.dumps(head, ensure_ascii=False)[:-1] + ', "sessions": ['
        for index, (session, rows) in enumerate(_sessions(app, thread_id)):
            record = session.model_dump(mode="json", exclude={"id", "thread_id", "parent_id"})
            record["messages"] = [_json_row(row, feedback.get(row.seq)) for row in rows]
            yield ("," if index else "") + json.dumps(record, ensure_ascii=False)
        yield "]}"

    return _bounded(parts())


def export_filename(title: str, extension: str) -> str:
    """A file name from the chat's title: letters, digits and dashes only."""
    stem = "".join(c if c.isalnum() else "-" for c in title.lower()).strip("-")
    return f"{'-'.join(part for part in stem.split('-') if part)[:60] or 'chat'}.{extension}"
