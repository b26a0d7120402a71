"""Anchored handoffs: handoff n is handoff n-1 updated by session n, then checked against the
grounded facts. Pure functions; nothing here asks a model.

Nothing of the previous handoff is dropped unless session n superseded it: a remaining task or
todo that is now done, an in-progress item replaced by the current one. The user's goal is
carried unchanged; constraints, requests, completed work, decisions, errors and files
accumulate; each modified file says in which sessions it changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from agent_core.handoff.artifact import CoverageCheck, FileChange, HandoffArtifact, Todo
from agent_core.handoff.grounded import GroundedFacts
from agent_core.handoff.user_text import same_request

__all__ = ["merge_previous", "merge_files", "ground", "coverage", "with_checks"]


def _union(*lists: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(item for items in lists for item in items if item))


def _still_open(task: str, done: Sequence[str], todos: Sequence[Todo]) -> bool:
    closed = {t.content for t in todos if t.status == "completed"}
    return task not in closed and not any(task in item for item in done)


def merge_files(previous: Sequence[FileChange], current: Sequence[FileChange],
                session_number: int) -> list[FileChange]:
    """The thread's modified files: earlier ones first, each with the sessions that changed it.
    A file proven by a tool call in any session stays verified."""
    merged: dict[str, FileChange] = {f.path: f for f in previous}
    for change in current:
        before = merged.get(change.path)
        sessions = sorted({*(before.sessions if before else []), session_number})
        merged[change.path] = change.model_copy(update={
            "sessions": sessions,
            "verified": change.verified or bool(before and before.verified),
            "evidence": change.evidence or (before.evidence if before else None),
        })
    return [FileChange.model_validate(f.model_dump()) for f in merged.values()]


def merge_previous(current: HandoffArtifact, previous: HandoffArtifact | None,
                   *, todos_recorded: bool, goal_changed: bool = False) -> HandoffArtifact:
    """``previous`` updated by the session ``current`` describes. ``todos_recorded`` says
    whether the session wrote its todo list (else the previous open todos still stand);
    ``goal_changed`` that the user replaced the goal in this session (else it is carried)."""
    if previous is None:
        files = merge_files([], current.files_modified, current.session_number)
        return current.model_copy(update={"files_modified": files})
    done = _union(previous.completed_work, current.completed_work)
    todos = current.open_todos if todos_recorded else previous.open_todos
    remaining = [t for t in previous.remaining_tasks
                 if _still_open(t, current.completed_work, current.open_todos)]
    files = merge_files(previous.files_modified, current.files_modified, current.session_number)
    modified = {f.path for f in files}
    update = {
        "goal": current.goal if goal_changed else (previous.goal or current.goal),
        "constraints": _union(previous.constraints, current.constraints),
        "user_messages": [*previous.user_messages, *current.user_messages],
        "completed_work": done,
        "in_progress": current.in_progress or previous.in_progress,
        "next_step": current.next_step or previous.next_step,
        "remaining_tasks": _union(remaining, current.remaining_tasks),
        "key_decisions": _union(previous.key_decisions, current.key_decisions),
        "errors_and_fixes": _union(previous.errors_and_fixes, current.errors_and_fixes),
        "files_modified": files,
        "files_read": [p for p in _union(previous.files_read, current.files_read)
                       if p not in modified],
        "open_todos": todos,
        "pinned_files": _union(previous.pinned_files, current.pinned_files),
    }
    return HandoffArtifact.model_validate({**current.model_dump(), **update})


# --- the deterministic check against the grounded facts --------------------------------------

def _commit_cited(sha: str, texts: Sequence[str]) -> bool:
    return any(sha[:7] in text for text in texts)


def ground(artifact: HandoffArtifact, facts: GroundedFacts, pinned: Sequence[str]
           ) -> HandoffArtifact:
    """Merge in every grounded item the artifact is missing: modified files, open todos, user
    requests, commits and pinned files."""
    paths = {f.path for f in artifact.files_modified}
    files = [*artifact.files_modified,
             *(f for f in facts.files_modified if f.path not in paths)]
    contents = {t.content for t in artifact.open_todos}
    todos = [*artifact.open_todos, *(t for t in facts.open_todos if t.content not in contents)]
    kept = artifact.user_messages
    requests = [*kept, *(r for r in facts.user_requests
                         if not any(same_request(k, r) for k in kept))]
    commits = [f"Commit {c.sha}: {c.message}" for c in facts.commits
               if not _commit_cited(c.sha, artifact.completed_work)]
    return HandoffArtifact.model_validate({
        **artifact.model_dump(),
        "files_modified": [f.model_dump() for f in files],
        "open_todos": [t.model_dump() for t in todos],
        "user_messages": requests,
        "completed_work": [*artifact.completed_work, *commits],
        "pinned_files": _union(artifact.pinned_files, pinned),
    })


def coverage(artifact: HandoffArtifact, facts: GroundedFacts, pinned: Sequence[str],
             previous: HandoffArtifact | None = None) -> list[CoverageCheck]:
    """How many grounded items of each kind the artifact holds. The grounded set is this
    session's facts plus what the previous handoff had proven (its verified files, its
    requests)."""
    earlier = previous or HandoffArtifact(session_number=1, trigger="auto", utilization=0,
                                          model="")
    files = _union((f.path for f in earlier.files_modified if f.verified), facts.modified_paths)
    have_files = {f.path for f in artifact.files_modified}
    todos = [t.content for t in facts.open_todos]
    have_todos = {t.content for t in artifact.open_todos}
    requests = [*earlier.user_messages, *facts.user_requests]
    kept = list(artifact.user_messages)
    covered_requests = 0
    for request in requests:  # each kept message answers for one request
        match = next((i for i, k in enumerate(kept) if same_request(k, request)
                      or same_request(request, k)), None)
        if match is not None:
            covered_requests += 1
            kept.pop(match)
    commits = [c.sha for c in facts.commits]
    pins = _union(pinned)

    def check(kind: str, covered: int, total: int) -> CoverageCheck:
        return CoverageCheck.model_validate({"kind": kind, "covered": covered, "total": total})

    return [
        check("files", sum(p in have_files for p in files), len(files)),
        check("todos", sum(t in have_todos for t in todos), len(todos)),
        check("requests", covered_requests, len(requests)),
        check("commits", sum(_commit_cited(s, artifact.completed_work) for s in commits),
              len(commits)),
        check("pinned", sum(p in artifact.pinned_files for p in pins), len(pins)),
    ]


def with_checks(artifact: HandoffArtifact, checks: list[CoverageCheck]) -> HandoffArtifact:
    return artifact.model_copy(update={"checks": checks})
