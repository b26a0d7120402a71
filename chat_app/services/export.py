"""A chat as a file: Markdown to read (sessions, dividers and handoffs in order) or JSON with
every stored field. Built a session at a time and bounded: an export travels to the browser
as one download event, so a chat past ``MAX_EXPORT_BYTES`` is refused with the reason."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from agent_core.handoff.artifact import HandoffArtifact
from agent_core.records import SessionRecord, StoredMessage
from chat_app.services import runtime
from chat_app.services.threads import owned_thread
from chat_app.services.timeline import model_label, tool_summary

__all__ = ["MAX_EXPORT_BYTES", "ExportTooLarge", "export_markdown", "export_json",
           "export_filename"]

MAX_EXPORT_BYTES = 8_000_000
_TOOL_RESULT_CHARS = 4_000  # the Markdown is for reading; the JSON keeps every character


class ExportTooLarge(ValueError):
    """The chat is larger than an export carries; the message says by how much."""


def _when(value: datetime | None) -> str:
    if value is None:
        return ""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _sessions(thread_id: str) -> Iterator[tuple[SessionRecord, list[StoredMessage]]]:
    store = runtime.store()
    for session in store.sessions(thread_id):
        yield session, store.messages(session.id)


def _bounded(parts: Iterator[str]) -> str:
    out, size = [], 0
    for part in parts:
        size += len(part.encode())
        if size > MAX_EXPORT_BYTES:
            raise ExportTooLarge(
                f"This chat is larger than the {MAX_EXPORT_BYTES // 1_000_000} MB an export "
                "can carry; nothing was exported.")
        out.append(part)
    return "".join(out)


def _divider(session: SessionRecord) -> str:
    heading = f"\n---\n\n## Session {session.number}\n\n"
    facts = [f"started {_when(session.started_at)}"]
    if session.number > 1:
        trigger = {"manual": "/handoff", "auto": "automatic reset",
                   "overflow": "overflow reset"}.get(session.trigger, session.trigger)
        if session.utilization is not None:
            trigger += f" at {round(session.utilization * 100)}% of the context window"
        facts.append(trigger)
    text = heading + "_" + " · ".join(facts) + "_\n\n"
    if session.handoff:
        artifact = HandoffArtifact.model_validate(session.handoff)
        body = artifact.to_markdown().replace("\n#", "\n###")
        text += f"### Handoff from session {session.number - 1}\n\n{body.strip()}\n\n"
    return text


def _fenced(text: str) -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}\n{text}\n{fence}\n"


def _markdown_rows(rows: list[StoredMessage]) -> Iterator[str]:
    for row in rows:
        when = _when(row.created_at)
        if row.role == "user" and not row.meta.get("carried_over_from"):
            yield f"**You** · {when}\n\n{row.content.strip()}\n\n"
        elif row.role == "assistant":
            if row.content.strip():
                label = model_label(row.model)
                yield f"**Assistant**{f' ({label})' if label else ''} · {when}\n\n" \
                      f"{row.content.strip()}\n\n"
            for call in row.tool_calls:
                yield f"- Tool call: `{tool_summary(call['name'], call.get('args', {}))}`\n\n"
        elif row.role == "tool":
            result = row.content
            if len(result) > _TOOL_RESULT_CHARS:
                result = result[:_TOOL_RESULT_CHARS] + f"\n… ({len(row.content):,} characters)"
            yield f"Result of `{row.name or 'tool'}`:\n\n{_fenced(result)}\n"
        elif row.role == "event":
            yield f"_{row.content.strip()}_\n\n"


def export_markdown(owner: str | None, thread_id: str) -> str | None:
    """The owner's chat as Markdown, or None when it is not theirs (see the module)."""
    thread = owned_thread(owner, thread_id)
    if thread is None:
        return None

    def parts() -> Iterator[str]:
        yield f"# {thread.title}\n\n_Exported from Baton {_when(datetime.now(UTC))}_\n"
        for session, rows in _sessions(thread_id):
            yield _divider(session)
            yield from _markdown_rows(rows)

    return _bounded(parts())


def _json_row(row: StoredMessage) -> dict[str, Any]:
    return row.model_dump(mode="json", exclude={"thread_id", "session_id", "id"})


def export_json(owner: str | None, thread_id: str) -> str | None:
    """The owner's chat as JSON: the thread, then every session with its handoff and all
    of its stored rows (tool calls, results, usage and event markers included)."""
    thread = owned_thread(owner, thread_id)
    if thread is None:
        return None
    head = {"format": "baton-chat", "version": 1, "title": thread.title,
            "exported_at": datetime.now(UTC).isoformat(), "forked_from": thread.forked_from_id}

    def parts() -> Iterator[str]:
        yield json.dumps(head, ensure_ascii=False)[:-1] + ', "sessions": ['
        for index, (session, rows) in enumerate(_sessions(thread_id)):
            record = session.model_dump(mode="json", exclude={"id", "thread_id", "parent_id"})
            record["messages"] = [_json_row(row) for row in rows]
            yield ("," if index else "") + json.dumps(record, ensure_ascii=False)
        yield "]}"

    return _bounded(parts())


def export_filename(title: str, extension: str) -> str:
    """A file name from the chat's title: letters, digits and dashes only."""
    stem = "".join(c if c.isalnum() else "-" for c in title.lower()).strip("-")
    return f"{'-'.join(part for part in stem.split('-') if part)[:60] or 'chat'}.{extension}"
