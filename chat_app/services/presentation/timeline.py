"""Stored rows and sessions turned into the UI's timeline items (pure functions)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Any

from agent_core import HandoffArtifact, StoredMessage
from agent_core.handoff import handoff_filename, handoff_state
from agent_core.providers import SIMULATOR_LABEL, SIMULATOR_NAMES
from agent_core.strategies import TURN_FAILED
from chat_app.services.presentation.message_usage import usage_label
from chat_app.services.presentation.run_labels import RunLabeller
from chat_app.services.presentation.views import SessionChip, TimelineItem

__all__ = [
    "items_from_rows",
    "earlier_reply_marks",
    "divider_item",
    "session_chips",
    "tool_summary",
    "anchor",
    "handoff_preview",
    "RowFolder",
    "model_label",
    "SIMULATED_TOOLS",
]

#: Tools whose result the offline simulator makes up (the file tools are real for every
#: model; the shell is scripted for the simulator and a sandboxed run for a real model).
SIMULATED_TOOLS = frozenset({"run_command"})

_RESULT_CHARS = 20_000
#: Marker rows that stand out as a problem: a tool source that failed, a turn that failed.
_PROBLEM_EVENTS = ("tool_problem", TURN_FAILED)


def model_label(name: str | None) -> str:
    """How the UI names a model: the simulator is never shown as if it were a model."""
    if not name:
        return ""
    return SIMULATOR_LABEL if name in SIMULATOR_NAMES else name


def anchor(number: int) -> str:
    return f"session-{number}"


def tool_summary(name: str, args: dict[str, Any]) -> str:
    if name in ("write_file", "edit_file", "read_file"):
        verb = {"write_file": "Wrote", "edit_file": "Edited", "read_file": "Read"}[name]
        return f"{verb} {args.get('path', '')}"
    if name == "run_command":
        return f"Ran `{str(args.get('command', ''))[:120]}`"
    if name == "write_todos":
        todos = args.get("todos") or []
        done = sum(1 for t in todos if isinstance(t, dict) and t.get("status") == "completed")
        return f"Updated todos ({done}/{len(todos)} done)"
    return f"Called {name}"


def handoff_preview(handoff: dict[str, Any] | None) -> str:
    if not handoff:
        return ""
    summary = (
        str(handoff.get("current_state_summary") or "")
        if handoff.get("imported_by")
        else handoff_state(handoff)
    ).strip()
    if summary:
        return summary.splitlines()[0][:200]
    done = handoff.get("completed_work") or []
    return f"Completed: {done[0]}"[:200] if done else "Handoff with no completed work yet"


def divider_item(session: Any, seq: int) -> TimelineItem:
    """The divider that opens ``session``, carrying the handoff it started from (if any)."""
    handoff = session.handoff or None
    markdown = ""
    if handoff:
        try:
            markdown = HandoffArtifact.model_validate(handoff).to_markdown()
        except ValueError:
            markdown = ""
    previous = session.number - 1
    return TimelineItem(
        key=anchor(session.number),
        kind="divider",
        seq=seq,
        session_number=session.number,
        created_at=session.started_at,
        trigger=session.trigger,
        utilization=session.utilization,
        model=model_label(session.model),
        handoff=handoff,
        handoff_preview=handoff_preview(handoff),
        handoff_markdown=markdown,
        handoff_filename=handoff_filename(previous),
    )


class RowFolder:
    """Folds rows into items as they arrive: an assistant row's tool calls become one
    ``tool`` item each, completed when their result row comes in."""

    def __init__(self, session_numbers: dict[str, int]):
        self.session_numbers = session_numbers
        self._open: dict[str, TimelineItem] = {}

    def add(self, row: StoredMessage) -> list[TimelineItem]:
        number = self.session_numbers.get(row.session_id, 1)
        base = {"seq": row.seq, "session_number": number, "created_at": row.created_at}
        if row.role == "user" and row.meta.get("carried_over_from"):
            return []  # the next session's copy of a request; the reader saw it where it was typed
        if row.role == "user":
            # keyed like the queued item it replaces, so the UI swaps it in place
            key = str(row.meta.get("pending_id") or row.id)
            return [
                TimelineItem(
                    key=key,
                    kind="message",
                    role="user",
                    content=row.content,
                    usage=usage_label(row),
                    **base,
                )
            ]
        if row.role == "assistant":
            out = []
            if row.content.strip():
                out.append(
                    TimelineItem(
                        key=row.id,
                        kind="message",
                        role="assistant",
                        content=row.content,
                        model=model_label(row.model),
                        stopped=bool(row.meta.get("stopped")),
                        incomplete=bool(row.meta.get("incomplete")),
                        usage=usage_label(row),
                        **base,
                    )
                )
            for call in row.tool_calls:
                item = TimelineItem(
                    key=f"{row.id}:{call['id']}",
                    kind="tool",
                    role="tool",
                    tool_name=call["name"],
                    summary=tool_summary(call["name"], call.get("args", {})),
                    model=model_label(row.model),
                    simulated=row.model in SIMULATOR_NAMES and call["name"] in SIMULATED_TOOLS,
                    **base,
                )
                self._open[call["id"]] = item
            return out
        if row.role == "tool":
            item = self._open.pop(row.tool_call_id or "", None)
            if item is None:
                item = TimelineItem(
                    key=row.id,
                    kind="tool",
                    role="tool",
                    tool_name=row.name or "tool",
                    summary=f"Result of {row.name or 'a tool'}",
                    **base,
                )
            failed = row.meta.get("status") == "error" or (
                "[exit status 0]" not in row.content[-40:]
                and ("[exit status" in row.content[-40:] or row.content.startswith("error:"))
            )
            return [
                item.model_copy(
                    update={"tool_result": row.content[:_RESULT_CHARS], "tool_failed": failed}
                )
            ]
        if row.role == "event":
            edit = row.meta.get("edit")
            return [
                TimelineItem(
                    key=row.id,
                    kind="marker",
                    role="event",
                    content=row.content,
                    marker_event=str(row.meta.get("event") or ""),
                    edit=edit if isinstance(edit, int) else None,
                    problem=row.meta.get("event") in _PROBLEM_EVENTS,
                    **base,
                )
            ]
        return []  # handoff / pinned rows are shown by the divider

    def flush(self) -> list[TimelineItem]:
        """Tool calls still without a result (a run stopped or still running)."""
        items = list(self._open.values())
        self._open.clear()
        return items


def earlier_reply_marks(
    items: Sequence[Any], replies: Iterable[Collection[int]]
) -> list[tuple[bool, bool]]:
    """For each of ``items`` (timeline items or rows, in order): whether it belongs to an
    earlier reply, and whether it is that reply's last row. ``replies`` are the earlier
    (regenerated) replies, each the seqs of its assistant and tool rows.

    A reply is one thing to the reader: every row from its first to its last is dimmed, the
    markers between them included (by seq, and by position: a marker shown live has no seq
    yet), never a message the user typed; and only its last row offers "Use this reply",
    when the window holds it."""
    replaced = [False] * len(items)
    ends = [False] * len(items)
    for reply in replies:
        seqs = set(reply)
        inside = [
            index
            for index, item in enumerate(items)
            if item.seq in seqs and item.role in ("assistant", "tool")
        ]
        if not inside:
            continue
        low, high = min(seqs), max(seqs)
        for index, item in enumerate(items):
            within = inside[0] <= index <= inside[-1] or low <= item.seq <= high
            if within and item.role != "user" and item.kind != "divider":
                replaced[index] = True
        if items[inside[-1]].seq == max(seqs):
            ends[inside[-1]] = True
    return list(zip(replaced, ends, strict=True))


def items_from_rows(
    rows: Sequence[StoredMessage], sessions: Iterable[Any], replaced: Iterable[Collection[int]] = ()
) -> list[TimelineItem]:
    """Timeline items for ``rows``, with a divider before the first row of each session;
    the earlier replies in ``replaced`` (regenerated ones, each the seqs of its rows) marked
    as such (:func:`earlier_reply_marks`)."""
    sessions = list(sessions)
    numbers = {s.id: s.number for s in sessions}
    by_id = {s.id: s for s in sessions}
    folder = RowFolder(numbers)
    items: list[TimelineItem] = []
    seen_sessions: set[str] = set()
    for row in rows:
        if row.session_id not in seen_sessions:
            seen_sessions.add(row.session_id)
            session = by_id.get(row.session_id)
            first = getattr(session, "first_seq", None)
            if session is not None and (first is None or first == row.seq):
                items.append(divider_item(session, row.seq))
        items.extend(folder.add(row))
    items.extend(folder.flush())
    replaced = list(replaced)
    if replaced:
        items = [
            item.model_copy(update={"replaced": True, "reply_end": end}) if dimmed else item
            for item, (dimmed, end) in zip(items, earlier_reply_marks(items, replaced), strict=True)
        ]
    labeller = RunLabeller()
    return [labeller.apply(item) for item in items]


def session_chips(sessions: Sequence[Any], earliest_loaded_seq: int | None) -> list[SessionChip]:
    chips = []
    last = len(sessions) - 1
    for index, session in enumerate(sessions):
        first = getattr(session, "first_seq", None)
        loaded = earliest_loaded_seq is None or (first is not None and first >= earliest_loaded_seq)
        label = f"Session {session.number}" + (" ← current" if index == last else "")
        chips.append(
            SessionChip(
                number=session.number,
                label=label,
                anchor=anchor(session.number),
                current=index == last,
                loaded=loaded,
            )
        )
    return chips
