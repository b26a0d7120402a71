"""Fitting an artifact to its token budget, by value: resolved and old facts give way before
unresolved and recent ones, and whatever goes is counted in an "omitted" line that says where
it can be read (:mod:`agent_core.handoff._omitted`), so nothing leaves silently.

In order, until it fits: files read; long decisions and completed items cut to a line; older
completed items, then older commits; older key
decisions; older resolved errors; older answered requests; older constraints (beyond the
newest eight); the state summary, remaining
tasks and in-progress lines shortened; answered requests cut shorter (each names where it is
stored whole); the largest directory of modified files counted instead of listed; open
requests and the goal cut shorter; last, constraints, errors, in-progress and remaining lines
cut to a line each and constraints beyond the newest three counted. Never dropped: the goal,
open requests, the newest constraints, the next step, what is in progress, commands still
failing, open todos, pinned files.
"""

from __future__ import annotations

from collections.abc import Callable

from agent_core.handoff._artifact import FileChange, HandoffArtifact
from agent_core.handoff._markdown import OMITTED_RE, session_ranges
from agent_core.handoff._omitted import (
    commits_line,
    count_line,
    is_omitted,
    requests_line,
    split_marker,
)
from agent_core.handoff._user_text import (
    capped,
    constraint_sentences,
    recapped,
    request_body,
    request_open,
    request_place,
)

__all__ = ["fit_to_budget", "TokenCount"]

TokenCount = Callable[[str], int]
Step = Callable[[HandoffArtifact, int], "HandoffArtifact | None"]

#: Items of each kind that always stay, newest first.
_KEEP_DONE, _KEEP_COMMITS, _KEEP_DECISIONS, _KEEP_ANSWERED, _KEEP_CONSTRAINTS = 3, 3, 2, 3, 8
_LAST_CONSTRAINTS = 3  # when nothing else is left to trim
_MESSAGE_CAPS = (200, 100)
_OPEN_CAPS = (300, 150, 60)
_GOAL_CAPS = (600, 300)


def _chars(items: list[str]) -> int:
    return sum(len(i) + 3 for i in items)


def _take(items: list[str], eligible: list[int], excess: int) -> list[int]:
    """The first of ``eligible`` (indices into ``items``) whose text adds up to ``excess``."""
    taken, freed = [], 0
    for index in eligible:
        if freed >= excess and taken:
            break
        taken.append(index)
        freed += len(items[index]) + 3
    return taken


def _files_read(a: HandoffArtifact, excess: int) -> HandoffArtifact | None:
    marker, rest = split_marker(a.files_read, "files read")
    if not rest:
        return None
    gone = _take(rest, list(range(len(rest))), excess)
    kept = [p for i, p in enumerate(rest) if i not in gone]
    line = count_line(marker, len(gone), "files read").split(";")[0] + ")"
    return a.model_copy(update={"files_read": [line, *kept]})


def _completed(a: HandoffArtifact, excess: int, *, commits: bool) -> HandoffArtifact | None:
    kind = "commits" if commits else "completed"
    marker, rest = split_marker(a.completed_work, kind)
    others = [i for i in rest if is_omitted(i)]
    items = [i for i in rest if not is_omitted(i)]
    chosen = [n for n, i in enumerate(items) if i.startswith("Commit ") == commits]
    eligible = chosen[: max(len(chosen) - (_KEEP_COMMITS if commits else _KEEP_DONE), 0)]
    if not eligible:
        return None
    gone = set(_take(items, eligible, excess))
    if commits:
        shas = [items[n].removeprefix("Commit ").split(":", 1)[0] for n in sorted(gone)]
        line = commits_line(marker, shas)
    else:
        line = count_line(marker, len(gone), "earlier completed items")
    kept = [i for n, i in enumerate(items) if n not in gone]
    return a.model_copy(update={"completed_work": [line, *others, *kept]})


def _older(name: str, keep: int, what: str, resolved_only: bool = False) -> Step:
    def step(a: HandoffArtifact, excess: int) -> HandoffArtifact | None:
        marker, rest = split_marker(getattr(a, name), what.split()[-1])
        items = [i for i in rest if not is_omitted(i)]
        others = [i for i in rest if is_omitted(i)]
        chosen = [
            n for n, i in enumerate(items) if not (resolved_only and i.startswith("Still failing"))
        ]
        # Lessons are newest first: the oldest sit at the end.
        ordered = chosen[::-1] if resolved_only else chosen
        eligible = ordered[: max(len(ordered) - keep, 0)]
        if not eligible:
            return None
        gone = set(_take(items, eligible, excess))
        kept = [i for n, i in enumerate(items) if n not in gone]
        line = count_line(marker, len(gone), what)
        return a.model_copy(
            update={name: [*kept, line, *others] if resolved_only else [line, *others, *kept]}
        )

    return step


def _answered_requests(a: HandoffArtifact, excess: int) -> HandoffArtifact | None:
    marker, rest = split_marker(a.user_messages, "requests")
    items = [i for i in rest if not is_omitted(i)]
    answered = [n for n, i in enumerate(items) if not request_open(i)]
    eligible = answered[: max(len(answered) - _KEEP_ANSWERED, 0)]
    if not eligible:
        return None
    gone = set(_take(items, eligible, excess))
    # The rules they stated stay, even when the requests go.
    rules = constraint_sentences(request_body(items[n]) for n in sorted(gone))
    line = requests_line(marker, [request_place(items[n]) for n in sorted(gone)], len(gone))
    kept = [i for n, i in enumerate(items) if n not in gone]
    return a.model_copy(
        update={
            "user_messages": [line, *kept],
            "constraints": list(dict.fromkeys([*a.constraints, *rules])),
        }
    )


def _shorter_text(name: str, limit: int = 160) -> Step:
    def step(a: HandoffArtifact, excess: int) -> HandoffArtifact | None:
        value = getattr(a, name)
        if isinstance(value, str):
            cut = value[: max(120, len(value) - excess)].rstrip() + "…"
            return a.model_copy(update={name: cut}) if len(cut) < len(value) else None
        shorter = [
            i if len(i) <= limit or is_omitted(i) else i[:limit].rstrip() + "…" for i in value
        ]
        return a.model_copy(update={name: shorter}) if shorter != value else None

    return step


def _cap_requests(cap: int, *, open_ones: bool) -> Step:
    def step(a: HandoffArtifact, excess: int) -> HandoffArtifact | None:
        items = list(a.user_messages)
        changed = False
        for n, item in enumerate(items):
            if is_omitted(item) or request_open(item) != open_ones:
                continue
            shorter = recapped(item, cap)
            if shorter is not None:
                items[n], changed = shorter, True
        return a.model_copy(update={"user_messages": items}) if changed else None

    return step


def _cap_goal(cap: int) -> Step:
    def step(a: HandoffArtifact, excess: int) -> HandoffArtifact | None:
        if len(a.goal) <= cap + 40 or "… [+" in a.goal:  # short, or capped already
            return None
        return a.model_copy(update={"goal": capped(a.goal, cap)})

    return step


def _collapse_directory(a: HandoffArtifact, excess: int) -> HandoffArtifact | None:
    groups: dict[str, list[FileChange]] = {}
    for change in a.files_modified:
        if not OMITTED_RE.match(change.path) and "/" in change.path:
            groups.setdefault(change.path.rsplit("/", 1)[0], []).append(change)
    if not groups:
        return None
    directory, files = max(groups.items(), key=lambda kv: len(kv[1]))
    if len(files) < 2:
        return None
    sessions = session_ranges([s for f in files for s in f.sessions])
    line = FileChange(
        path=f"(omitted: {len(files)} files in {directory}/"
        + (f", sessions {sessions}" if sessions else "")
        + ")",
        verified=True,
    )
    kept = [f for f in a.files_modified if f not in files]
    return a.model_copy(update={"files_modified": [*kept, line]})


_STEPS: tuple[Step, ...] = (
    _files_read,
    _shorter_text("key_decisions"),
    _shorter_text("completed_work"),
    lambda a, e: _completed(a, e, commits=False),
    lambda a, e: _completed(a, e, commits=True),
    _older("key_decisions", _KEEP_DECISIONS, "older decisions"),
    _older("errors_and_fixes", 0, "older resolved errors", resolved_only=True),
    _answered_requests,
    _older("constraints", _KEEP_CONSTRAINTS, "older constraints"),
    _shorter_text("current_state_summary"),
    _shorter_text("remaining_tasks"),
    *(_cap_requests(cap, open_ones=False) for cap in _MESSAGE_CAPS),
    _shorter_text("in_progress"),
    _collapse_directory,
    *(_cap_requests(cap, open_ones=True) for cap in _OPEN_CAPS),
    *(_cap_goal(cap) for cap in _GOAL_CAPS),
    # Last: what still overflows is cut line by line, so the budget holds whatever the
    # session's shape (a long plan under way beside many long rules the user stated).
    _shorter_text("constraints"),
    _older("constraints", _LAST_CONSTRAINTS, "older constraints"),
    _shorter_text("errors_and_fixes"),
    _shorter_text("in_progress", 100),
    _shorter_text("remaining_tasks", 80),
    _shorter_text("constraints", 80),
)


def fit_to_budget(
    artifact: HandoffArtifact, budget_tokens: int, count: TokenCount
) -> tuple[HandoffArtifact, int]:
    """Trim until the markdown fits ``budget_tokens`` (see the module docstring for the
    order and what is never trimmed); returns the artifact and its size in tokens."""
    markdown = artifact.to_markdown()
    tokens = count(markdown)
    step = 0
    while tokens > budget_tokens and step < len(_STEPS):
        # Trim by characters (cheap) towards where the last count says the budget is, then
        # count again: a long thread's artifact is not re-tokenized after every small step.
        excess = len(markdown) - len(markdown) * budget_tokens // tokens
        smaller = _STEPS[step](artifact, excess)
        if smaller is None:
            step += 1
            continue
        artifact, markdown = smaller, smaller.to_markdown()
        tokens = count(markdown)
    artifact = HandoffArtifact.model_validate(artifact.model_dump())
    return artifact, count(artifact.to_markdown())
