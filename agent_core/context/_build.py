"""What the model sees of a session, rebuilt from the store.

The store keeps every original row; compactions and todo compressions are recorded as
:class:`~agent_core.storage._records.ContextEdit` and applied here, so the model's context and the
user's timeline never have to agree row for row.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from agent_core.providers._stream_end import is_cut_off
from agent_core.storage._ports import SessionStore
from agent_core.storage._records import ContextEdit, NewMessage, SessionRecord, StoredMessage
from agent_core.validation import sanitize_text

__all__ = [
    "CONTEXT_KINDS",
    "MASKED",
    "CONTEXT_SAMPLE",
    "to_langchain",
    "from_langchain",
    "repair_tool_pairs",
    "apply_edits",
    "summary_message",
    "build_context",
    "context_kind",
    "content_text",
]

#: Roles that start a session (a reset's handoff, pinned files) or stand in for older rows.
CONTEXT_KINDS = ("handoff", "pinned", "summary")
#: Marks a tool result whose output a mask edit replaced by a placeholder.
MASKED = "baton_masked"
#: ``response_metadata`` key the middleware puts on a reply: its call's context utilization.
CONTEXT_SAMPLE = "baton_context"
_STOPPED_TOOL = "error: the run stopped before this tool call finished; run it again if needed"


def context_kind(message: BaseMessage) -> str | None:
    """``handoff`` / ``pinned`` / ``summary`` for context messages, None for conversation."""
    kind = message.additional_kwargs.get("baton_kind")
    return kind if kind in CONTEXT_KINDS else None


def _row_to_message(row: StoredMessage) -> BaseMessage | None:
    if row.role == "user":
        # A message handed over from the previous session says so: it is already among that
        # session's requests in the handoff.
        meta = row.meta if isinstance(row.meta, dict) else {}
        extra = (
            {"carried_over_from": meta["carried_over_from"]}
            if meta.get("carried_over_from")
            else {}
        )
        if meta.get("queued"):  # typed while the agent worked: the handoff says so
            extra["queued"] = True
        return HumanMessage(content=row.content, id=row.id, additional_kwargs=extra)
    if row.role in ("handoff", "pinned"):
        return HumanMessage(
            content=row.content, id=row.id, additional_kwargs={"baton_kind": row.role}
        )
    if row.role == "assistant":
        calls = [
            {"name": c["name"], "args": c.get("args", {}), "id": c["id"], "type": "tool_call"}
            for c in row.tool_calls
        ]
        # The usage a provider reported for the call that wrote this row: estimators in any
        # process (another worker, a restart) calibrate from it.
        usage = row.meta.get("usage") if isinstance(row.meta, dict) else None
        if not (
            isinstance(usage, dict)
            and {"input_tokens", "output_tokens", "total_tokens"} <= usage.keys()
        ):
            usage = None
        return AIMessage(content=row.content, tool_calls=calls, id=row.id, usage_metadata=usage)
    if row.role == "tool":
        # A failed call stays failed when the session is rebuilt (providers mark it, e.g.
        # Anthropic's is_error, and the handoff's facts do not count it as done).
        status = "error" if row.meta.get("status") == "error" else "success"
        return ToolMessage(
            content=row.content,
            tool_call_id=row.tool_call_id or "",
            name=row.name,
            id=row.id,
            status=status,
        )
    if row.role == "system":
        return SystemMessage(content=row.content, id=row.id)
    return None  # event rows are timeline markers, never model input


def to_langchain(rows: Iterable[StoredMessage]) -> list[BaseMessage]:
    """Stored rows as langchain messages (event rows dropped), tool pairs repaired."""
    messages = [m for m in (_row_to_message(r) for r in rows) if m is not None]
    return repair_tool_pairs(messages)


def content_text(content: object) -> str:
    """A message's content as plain text (the text parts of a content-block list)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text", "") if isinstance(part, dict) else str(part) for part in content
        )
    return str(content)


def from_langchain(
    message: BaseMessage, *, todo_id: str | None = None, model: str | None = None
) -> NewMessage:
    """A langchain message as a row to store (content made storable)."""
    if isinstance(message, AIMessage):
        calls = [{"name": c["name"], "args": c["args"], "id": c["id"]} for c in message.tool_calls]
        usage = dict(message.usage_metadata or {})
        meta: dict[str, object] = {"usage": usage} if usage else {}
        if is_cut_off(message):  # the stream ended before the provider's finish marker
            meta["incomplete"] = True
        sample = message.response_metadata.get(CONTEXT_SAMPLE)
        if isinstance(sample, dict):  # the utilization its model call was sent at (the chart)
            meta["context"] = dict(sample)
        return NewMessage(
            role="assistant",
            content=sanitize_text(content_text(message.content)),
            tool_calls=calls,
            todo_id=todo_id,
            model=model,
            meta=meta,
        )
    if isinstance(message, ToolMessage):
        return NewMessage(
            role="tool",
            content=sanitize_text(content_text(message.content)),
            tool_call_id=message.tool_call_id,
            name=message.name,
            todo_id=todo_id,
            meta={"status": message.status} if message.status != "success" else {},
        )
    kind = context_kind(message)
    role = kind if kind in ("handoff", "pinned") else "user"
    return NewMessage(
        role=role, content=sanitize_text(content_text(message.content)), todo_id=todo_id
    )


def repair_tool_pairs(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """Give every tool call a result and drop results whose call is gone.

    A run stopped (or a worker killed) between a tool call and its result leaves a dangling
    call that every provider rejects; a synthetic error result keeps the thread usable.
    """
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    called: set[str] = set()
    repaired: list[BaseMessage] = []
    for message in messages:
        if isinstance(message, ToolMessage) and message.tool_call_id not in called:
            continue
        repaired.append(message)
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                if call["id"] is None:
                    continue
                called.add(call["id"])
                if call["id"] not in answered:
                    repaired.append(
                        ToolMessage(
                            content=_STOPPED_TOOL,
                            tool_call_id=call["id"],
                            name=call["name"],
                            status="error",
                        )
                    )
    return repaired


def summary_message(edit: ContextEdit) -> HumanMessage:
    """The message that stands in the model's view for the rows a compaction or a todo
    summary replaced."""
    label = (
        "Summary of earlier work in this session"
        if edit.kind == "compaction"
        else (f"Summary of completed todo {edit.todo_id}")
    )
    return HumanMessage(
        content=f"<summary>\n{label}:\n{edit.summary}\n</summary>",
        additional_kwargs={"baton_kind": "summary", "edit_kind": edit.kind},
    )


def apply_edits(rows: Sequence[StoredMessage], edits: Sequence[ContextEdit]) -> list[BaseMessage]:
    """The model's view of a session: rows with compactions, todo summaries and masked tool
    outputs applied, and replies the user regenerated left out."""
    edits = [edit for edit in edits if not edit.undone]
    compaction = next((e for e in reversed(edits) if e.kind == "compaction"), None)
    cut = compaction.upto_seq if compaction and compaction.upto_seq is not None else -1
    todo_first: dict[int, ContextEdit] = {}
    hidden: set[int] = set()
    # A later todo edit (a parent roll-up) supersedes the earlier ones it covers.
    for edit in edits:
        if edit.kind != "todo" or not edit.seqs:
            continue
        for seq in edit.seqs:
            hidden.add(seq)
            todo_first.pop(seq, None)
        todo_first[min(edit.seqs)] = edit
    masked: dict[int, str] = {}
    revised: dict[int, str] = {}
    for edit in edits:
        if edit.kind == "mask":
            masked.update(edit.placeholders)
        elif edit.kind == "handoff":  # the user's review: an edited handoff, or none ("")
            revised.update(edit.placeholders)
        elif edit.kind == "reply":  # a regenerated reply the user did not choose
            hidden.update(edit.seqs)
    out: list[BaseMessage] = []
    summary_placed = compaction is None
    for row in rows:
        if row.role in ("handoff", "pinned"):
            if row.seq in revised:
                if not revised[row.seq]:
                    continue
                row = row.model_copy(update={"content": revised[row.seq]})
            out.extend(filter(None, [_row_to_message(row)]))
            continue
        if not summary_placed:
            out.append(summary_message(compaction))  # type: ignore[arg-type]
            summary_placed = True
        if row.seq <= cut:
            continue
        if row.seq in todo_first:
            out.append(summary_message(todo_first[row.seq]))
        if row.seq in hidden:
            continue
        if row.role == "tool" and row.seq in masked:
            row = row.model_copy(update={"content": masked[row.seq]})
        message = _row_to_message(row)
        if message is not None:
            if row.role == "tool" and row.seq in masked:
                message.additional_kwargs[MASKED] = True
            out.append(message)
    if not summary_placed:
        out.append(summary_message(compaction))  # type: ignore[arg-type]
    return repair_tool_pairs(out)


def build_context(store: SessionStore, session: SessionRecord) -> list[BaseMessage]:
    """Everything the model should see of ``session`` (system prompt not included)."""
    return apply_edits(store.messages(session.id), store.context_edits(session.id))
