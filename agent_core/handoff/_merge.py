"""Anchored handoffs: handoff n is handoff n-1 updated by session n, then completed from the
grounded facts. Pure functions; nothing here asks a model.

Nothing of the previous handoff is dropped unless session n superseded it: a remaining task or
todo that is now done, an in-progress item replaced by the current one, a failure that now
passes. The user's goal is carried unchanged; constraints, requests, completed work,
decisions, lessons and files accumulate; each modified file says in which sessions it changed.
What an earlier budget left out stays as its "omitted" line, so nothing leaves silently.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence

from agent_core.handoff._artifact import FileChange, HandoffArtifact, Todo
from agent_core.handoff._facts_only import Locate, request_items
from agent_core.handoff._grounded import CommandRun, GroundedFacts
from agent_core.handoff._operations import Streak, streaks
from agent_core.handoff._user_text import answered, request_body, same_request
from agent_core.handoff._work_state import item_ids

__all__ = ["merge_previous", "merge_files", "merge_lessons", "ground", "with_checks"]

_COMMAND_RE = re.compile(r"`([^`]+)`")


def _union(*lists: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(item for items in lists for item in items if item))


_UNDER_WAY = "Under way:"
# The steps of a plan the agent stated belong to its session: the next one states its own.
_STATED_STEP = re.compile(r"^step \d+ ")


def _ids(lines: Iterable[str]) -> set[str]:
    return {found for line in lines for found in item_ids(line)}


def _still_open(
    task: str, done: Sequence[str], todos: Sequence[Todo], taken: Collection[str] = ()
) -> bool:
    """Whether a remaining task is still to do: not completed (by its text or its id) and not
    the item now under way (``taken``: its ids)."""
    closed = {t.content for t in todos if t.status == "completed"}
    ids = set(item_ids(task.split(" (")[0]))
    return (
        task not in closed
        and not any(task in item for item in done)
        and not ids & (_ids(done) | set(taken))
    )


def _carried_in_progress(
    previous: HandoffArtifact,
    current: HandoffArtifact,
    replied: bool,
    commands: Sequence[CommandRun],
) -> list[str]:
    """What the session writes as under way, after the previous item under way when the
    session named none and did not complete it (a task spans resets). A carried failure the
    session has since passed is not carried."""
    if not current.in_progress:
        if replied:
            return []
        return [line for line in previous.in_progress if _still_failing(line, commands)]
    if replied or any(line.startswith((_UNDER_WAY, "Todo")) for line in current.in_progress):
        return current.in_progress
    done = _ids(current.completed_work)
    carried = [
        line
        for line in previous.in_progress
        if line.startswith(_UNDER_WAY) and not set(item_ids(line.split(" (")[0])) & done
    ]
    return carried[:1] + current.in_progress


def _next_step(
    previous: HandoffArtifact,
    current: HandoffArtifact,
    replied: bool,
    commands: Sequence[CommandRun],
) -> str:
    """The session's next step, else the previous one while the session completed nothing
    (a step older than the newest completed work is never carried, nor one to make a command
    pass that the session has passed since)."""
    if current.next_step or replied:
        return current.next_step
    new_done = [line for line in current.completed_work if line not in previous.completed_work]
    if new_done or not _still_failing(previous.next_step, commands):
        return ""
    return previous.next_step


def merge_files(
    previous: Sequence[FileChange], current: Sequence[FileChange], session_number: int
) -> list[FileChange]:
    """The thread's modified files: earlier ones first, each with the sessions that changed it.
    A file proven by a tool call in any session stays verified."""
    merged: dict[str, FileChange] = {f.path: f for f in previous}
    for change in current:
        before = merged.get(change.path)
        sessions = sorted({*(before.sessions if before else []), session_number})
        merged[change.path] = change.model_copy(
            update={
                "sessions": sessions,
                "verified": change.verified or bool(before and before.verified),
                "evidence": change.evidence or (before.evidence if before else None),
            }
        )
    return [FileChange.model_validate(f.model_dump()) for f in merged.values()]


def _lesson_command(line: str) -> str | None:
    found = _COMMAND_RE.search(line)
    return found.group(1) if found else None


def _resolved_now(command: str, commands: Sequence[CommandRun]) -> Streak | None:
    """How the session's ``commands`` treat an earlier session's failure of ``command``: the
    streak it opens (ended: fixed now; more failures: failing again, told by the newer
    line), None when the session never performed its operation."""
    runs = [CommandRun(command=command, exit_status=1), *commands]
    streak = next(s for s in streaks(runs) if 0 in s.failures)
    return streak if streak.ended is not None or len(streak.failures) > 1 else None


def _rechecked(line: str, commands: Sequence[CommandRun], session_number: int) -> str | None:
    """An earlier "Still failing" line after this session: unchanged while the session did
    not touch its operation, a lesson once the session passed it, gone when it failed again
    (the session's own line says so)."""
    command = _lesson_command(line)
    if command is None or not line.startswith("Still failing") or not commands:
        return line
    streak = _resolved_now(command, commands)
    if streak is None:
        return line
    if streak.ended is None:
        return None
    by = streak.ended.by.command
    how = "its work was committed or closed" if streak.ended.closed else "it passed"
    return f"`{command}` failed in an earlier session; {how} in session {session_number}: `{by}`"


def merge_lessons(
    previous: Sequence[str],
    current: Sequence[str],
    commands: Sequence[CommandRun] = (),
    session_number: int = 0,
) -> list[str]:
    """Lessons of both, a command's newer line replacing its older one; still failing first.
    Each earlier failure is re-checked against the session's ``commands``: one the session
    passed, however worded, is a lesson, no longer "Still failing"."""
    newer = {_lesson_command(line) for line in current} - {None}
    kept = [line for line in previous if _lesson_command(line) not in newer]
    kept = [
        line for line in (_rechecked(k, commands, session_number) for k in kept) if line is not None
    ]
    lines = _union(current, kept)
    return [line for line in lines if line.startswith("Still failing")] + [
        line for line in lines if not line.startswith("Still failing")
    ]


def _still_failing(line: str, commands: Sequence[CommandRun]) -> bool:
    """Whether a carried "Failing: `x`" or "Make `x` pass" line still holds after the session."""
    command = _lesson_command(line)
    if command is None or not line.startswith(("Failing:", "Make `")):
        return True
    return _resolved_now(command, commands) is None


def _merge_requests(previous: Sequence[str], current: Sequence[str], replied: bool) -> list[str]:
    """Earlier requests, then this session's; an earlier one left open is answered once the
    session gave a completed reply. A request asked again is listed once, where it was asked
    last (with its flags then)."""
    bodies = {request_body(item) for item in current}
    earlier = [
        answered(item) if replied else item for item in previous if request_body(item) not in bodies
    ]
    return [*earlier, *current]


def merge_previous(
    current: HandoffArtifact,
    previous: HandoffArtifact | None,
    *,
    todos_recorded: bool,
    goal_changed: bool = False,
    replied: bool = False,
    commands: Sequence[CommandRun] = (),
) -> HandoffArtifact:
    """``previous`` updated by the session ``current`` describes. ``todos_recorded`` says
    whether the session wrote its todo list (else the previous open todos still stand);
    ``goal_changed`` that the user replaced the goal in this session (else it is carried);
    ``replied`` that the session gave a completed reply (earlier open requests are answered);
    ``commands`` the session's command runs, against which every earlier failure is checked."""
    if previous is None:
        files = merge_files([], current.files_modified, current.session_number)
        return current.model_copy(update={"files_modified": files})
    done = _union(previous.completed_work, current.completed_work)
    todos = current.open_todos if todos_recorded else previous.open_todos
    taken = _ids(line.split(" (")[0] for line in current.in_progress if line.startswith(_UNDER_WAY))
    remaining = [
        t
        for t in previous.remaining_tasks
        if not _STATED_STEP.match(t)
        and _still_open(t, current.completed_work, current.open_todos, taken)
    ]
    files = merge_files(previous.files_modified, current.files_modified, current.session_number)
    modified = {f.path for f in files}
    in_progress = _carried_in_progress(previous, current, replied, commands)
    under_way = [t for t in todos if t.status == "in_progress"]
    if under_way and not any(under_way[0].content in line for line in in_progress):
        # The session did not write its todo list: the todo the list has under way still is.
        place = next((i for i, t in enumerate(todos, 1) if t is under_way[0]), 0)
        in_progress = [f"Todo ({place} of {len(todos)} open): {under_way[0].content}", *in_progress]
    update = {
        "goal": current.goal if goal_changed else (previous.goal or current.goal),
        "constraints": _union(previous.constraints, current.constraints),
        "user_messages": _merge_requests(previous.user_messages, current.user_messages, replied),
        "completed_work": done,
        # What was under way carries over only a session that finished nothing: one that gave
        # a completed reply and has nothing under way left nothing under way.
        "in_progress": in_progress,
        "next_step": _next_step(previous, current, replied, commands),
        "remaining_tasks": _union(remaining, current.remaining_tasks),
        "key_decisions": _union(previous.key_decisions, current.key_decisions),
        "errors_and_fixes": merge_lessons(
            previous.errors_and_fixes, current.errors_and_fixes, commands, current.session_number
        ),
        "files_modified": files,
        "files_read": [
            p for p in _union(previous.files_read, current.files_read) if p not in modified
        ],
        "open_todos": todos,
        "pinned_files": _union(previous.pinned_files, current.pinned_files),
    }
    return HandoffArtifact.model_validate({**current.model_dump(), **update})


# --- completing the artifact from the grounded facts ------------------------------------------


def _commit_cited(sha: str, texts: Sequence[str]) -> bool:
    return any(sha[:7] in text for text in texts)


def ground(
    artifact: HandoffArtifact,
    facts: GroundedFacts,
    pinned: Sequence[str],
    locate: Locate | None = None,
) -> HandoffArtifact:
    """Merge in every grounded item the artifact is missing: modified files, open todos, user
    requests, commits, completed todos and pinned files."""
    paths = {f.path for f in artifact.files_modified}
    files = [*artifact.files_modified, *(f for f in facts.files_modified if f.path not in paths)]
    contents = {t.content for t in artifact.open_todos}
    todos = [*artifact.open_todos, *(t for t in facts.open_todos if t.content not in contents)]
    shown = [artifact.goal, *artifact.user_messages]
    missing = [r for r in facts.requests if not any(same_request(k, r.text) for k in shown if k)]
    commits = [
        f"Commit {c.sha[:7]}: {c.message}"
        for c in facts.commits
        if not _commit_cited(c.sha, artifact.completed_work)
    ]
    # Each completed todo once, in the words the state line counts.
    commits += [
        f"Completed todo: {t.content}"
        for t in facts.todos
        if t.status == "completed" and f"Completed todo: {t.content}" not in artifact.completed_work
    ]
    return HandoffArtifact.model_validate(
        {
            **artifact.model_dump(),
            "files_modified": [f.model_dump() for f in files],
            "open_todos": [t.model_dump() for t in todos],
            "user_messages": [*artifact.user_messages, *request_items(missing, locate)],
            "completed_work": [*artifact.completed_work, *commits],
            "pinned_files": _union(artifact.pinned_files, pinned),
        }
    )


def with_checks(artifact: HandoffArtifact, checks: list) -> HandoffArtifact:
    return artifact.model_copy(update={"checks": checks})
