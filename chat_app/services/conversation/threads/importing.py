"""Import an agent's session file (Claude Code, Codex, pi, opencode, cline, aider, SWE-agent,
OpenAI chat) as a read-only chat that keeps the original agent's own structure.

The file is parsed by :mod:`agent_core.transcripts` and cut at the original agent's own
compactions (:func:`~agent_core.transcripts.split_sessions`): each becomes a session whose
divider card is the summary that agent wrote, with the tokens before and after. Messages the
agent recorded but that are not the user speaking (system reminders, command output, aider's
``/commands``) are kept as muted marker rows, not as requests; so is a note of the lines the
reader skipped (another tool's lines, record types it does not read), at the top, so the user
sees at once what was left out. The file itself is stored with
the chat so a what-if replay (:mod:`chat_app.services.conversation.threads.replays`) can run over it later.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from sqlmodel import Session, col, select

from agent_core import (
    NewMessage,
    Transcript,
    TranscriptFormatError,
    content_text,
    model_info,
    parse_transcript,
)
from agent_core.context import from_langchain
from agent_core.storage import QUEUED, base_name
from agent_core.transcripts import (
    FORMAT_NAMES,
    NOT_SENT,
    ImportedSession,
    OriginalCompaction,
    split_sessions,
)
from chat_app.db import repo
from chat_app.db.convert import message_row
from chat_app.db.models import ChatSession, ImportedTranscript, Thread
from chat_app.errors import Refused
from chat_app.services.conversation.threads.titles import title_from_requests
from chat_app.services.runtime.backend import Backend

__all__ = [
    "ImportRejected",
    "import_session",
    "imported_record",
    "is_imported",
    "import_max_bytes",
    "imported_label",
    "imported_labels",
    "AGENT_NAMES",
    "READ_ONLY",
]

#: How the UI names the agent that wrote each format.
AGENT_NAMES = FORMAT_NAMES

READ_ONLY = (
    "This chat is an imported session and is read-only. Use “Replay with…” to see "
    "what Baton would have done with it."
)


class ImportRejected(Refused):
    """An upload that cannot be imported; the message says why, for the user."""

    default_code = "import_rejected"


def import_max_bytes(app: Backend) -> int:
    """The largest file accepted (``BATON_IMPORT_MAX_MB``, default 25 MB)."""
    return int(app.settings.import_max_mb * 1024 * 1024)


def import_session(app: Backend, owner: str, filename: str, data: bytes) -> str:
    """Store the session file ``data`` as a new read-only chat of ``owner``; its id.

    Raises :class:`ImportRejected` for a file too large, not text, or in no known format.
    """
    name = base_name(filename or "session") or "session"
    limit = import_max_bytes(app)
    if len(data) > limit:
        raise ImportRejected(
            f"{name} is {len(data) / 1048576:.1f} MB; the import limit is {limit / 1048576:.0f} MB.",
            code="too_large",
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ImportRejected(f"{name} is not UTF-8 text ({exc.reason}).", code="not_text") from exc
    try:
        transcript = parse_transcript(text, name)
    except TranscriptFormatError as exc:
        raise ImportRejected(
            f"{name} could not be read as an agent session: {exc}", code="unreadable"
        ) from exc
    return _store(app, owner, name, text, transcript)


def is_imported(app: Backend, thread_id: str) -> bool:
    with app.read() as db:
        return db.get(ImportedTranscript, thread_id) is not None


def imported_label(record: ImportedTranscript) -> str:
    """Who answered an imported chat, where a chat names the model that answers it: the
    agent that wrote the file, and its model when the file names one. Never the assistant's
    model (the simulator, say): nothing of the chat was answered here."""
    agent = AGENT_NAMES.get(record.format, record.format)
    return f"Imported from {agent}" + (f" · {record.model}" if record.model else "")


def imported_labels(*, session: Session, thread_ids: list[str]) -> dict[str, str]:
    """:func:`imported_label` of each imported thread among ``thread_ids``."""
    if not thread_ids:
        return {}
    records = session.exec(
        select(ImportedTranscript).where(col(ImportedTranscript.thread_id).in_(thread_ids))
    ).all()
    return {record.thread_id: imported_label(record) for record in records}


def imported_record(app: Backend, thread_id: str) -> ImportedTranscript | None:
    with app.read() as db:
        record = db.get(ImportedTranscript, thread_id)
        if record is not None:
            db.expunge(record)
        return record


def original_model(transcript: Transcript) -> str | None:
    for message in transcript.messages:
        if isinstance(message, AIMessage) and message.response_metadata.get("model"):
            return str(message.response_metadata["model"])
    models = transcript.metadata.get("models") or [transcript.metadata.get("model")]
    return str(models[0]) if models and models[0] else None


def _store(app: Backend, owner: str, name: str, text: str, transcript: Transcript) -> str:
    sessions = split_sessions(transcript)
    model = original_model(transcript)
    window = model_info(model).context_window if model else None
    agent = AGENT_NAMES.get(transcript.format, transcript.format)
    with app.write() as db:
        assistant = repo.ensure_default_assistant(session=db)
        thread = Thread(owner=owner, assistant_id=assistant.id, title=_title(name, transcript))
        db.add(thread)
        db.flush()
        seq = 1
        for imported in sessions:
            started = _when(
                imported.compaction.timestamp if imported.compaction else None
            ) or _first_time(imported.messages)
            row = ChatSession(
                thread_id=thread.id,
                number=imported.number,
                model=model,
                trigger="start"
                if imported.compaction is None or imported.number == 1
                else "imported",
                utilization=_utilization(imported.compaction, window),
                handoff=_card(imported.compaction, agent),
            )
            if started is not None:
                row.started_at = started
            db.add(row)
            db.flush()
            rows = _rows(imported, agent)
            if imported.number == 1 and (note := transcript.skipped_note()):
                rows.insert(0, _skipped_row(note, agent))
            for message in rows:
                stored = message_row(thread.id, row.id, seq, message)
                when = _when(message.meta.get("timestamp"))
                if when is not None:
                    stored.created_at = when
                db.add(stored)
                seq += 1
        thread.next_seq = seq
        db.add(
            ImportedTranscript(
                thread_id=thread.id,
                format=transcript.format,
                filename=name[:300],
                source=text,
                message_count=len(transcript.messages),
                model=model,
                usage=[[u.message_index, u.input_tokens] for u in transcript.usage],
                compactions=[
                    [
                        c.compaction.message_index,
                        c.compaction.tokens_before,
                        c.compaction.tokens_after,
                    ]
                    for c in sessions
                    if c.compaction
                ],
            )
        )
        db.commit()
        return thread.id


def _rows(imported: ImportedSession, agent: str) -> list[NewMessage]:
    rows = []
    for message in imported.messages:
        stamp = message.additional_kwargs.get("timestamp")
        if isinstance(message, SystemMessage):
            row = NewMessage(role="system", content=str(message.content))
        elif isinstance(message, HumanMessage) and (
            message.additional_kwargs.get("not_user") or message.additional_kwargs.get(NOT_SENT)
        ):
            reason = str(message.additional_kwargs.get("not_user") or "not sent to the model")
            row = NewMessage(
                role="event", content=content_text(message.content), meta={"imported_note": reason}
            )
        else:
            row = from_langchain(message, model=_model_of(message))
            if isinstance(message, HumanMessage) and message.additional_kwargs.get(QUEUED):
                row.meta = {**row.meta, QUEUED: True}  # typed while the agent worked
        if stamp:
            row.meta = {**row.meta, "timestamp": stamp}
        rows.append(row)
    if not rows and imported.compaction is not None:  # the file ends with this compaction
        rows.append(
            NewMessage(
                role="event",
                content=f"{agent} compacted here; the session file ends before the next message.",
            )
        )
    return rows


def _skipped_row(note: str, agent: str) -> NewMessage:
    """The note, at the top of the chat, of the lines the reader left out."""
    return NewMessage(
        role="event",
        content=f"Imported from {agent}; {note}.",
        meta={"imported_note": "skipped_lines"},
    )


def _card(compaction: OriginalCompaction | None, agent: str) -> dict[str, Any] | None:
    """The divider card of a session the original agent opened by compacting."""
    if compaction is None:
        return None
    return {
        "imported_by": agent,
        "current_state_summary": compaction.summary,
        "trigger": "imported",
        "tokens_before": compaction.tokens_before,
        "tokens_after": compaction.tokens_after,
        "compaction_trigger": compaction.trigger,
    }


def _utilization(compaction: OriginalCompaction | None, window: int | None) -> float | None:
    if compaction is None or not compaction.tokens_before or not window:
        return None
    return round(compaction.tokens_before / window, 4)


def _title(name: str, transcript: Transcript) -> str:
    title = title_from_requests(
        content_text(message.content)
        for message in transcript.messages
        if isinstance(message, HumanMessage)
        and not message.additional_kwargs.get("not_user")
        and not message.additional_kwargs.get(NOT_SENT)
    )
    return f"{title or name} (imported)"


def _model_of(message: BaseMessage) -> str | None:
    model = message.response_metadata.get("model") if isinstance(message, AIMessage) else None
    return str(model)[:200] if model else None


def _when(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _first_time(messages: list[BaseMessage]) -> datetime | None:
    for message in messages:
        when = _when(message.additional_kwargs.get("timestamp"))
        if when is not None:
            return when
    return None
