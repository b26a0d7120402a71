"""What was being done when a session stopped, and why its failures failed: read from the
evidence alone (todo lists, file changes, command runs, the assistant's own words), so a
handoff written without a model still says where the work stands, and a model-written one
can be checked against it. Pure functions."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from agent_core.handoff._artifact import Todo
from agent_core.handoff._grounded import CommandRun, Progress, UserRequest
from agent_core.handoff._operations import streaks

__all__ = ["progress_of", "command_key", "sentences"]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
# The assistant saying what it will do next ("Let me run the tests", "Next I'll add docs").
_INTENTION = re.compile(
    r"^.{0,30}?\b(?:I'll|I will|I'm going to|I am going to|let me|let's|I need to|I should|I'm now going to"
    r"|the next step is|next step:|next,? I)\b",
    re.IGNORECASE,
)
# The assistant saying why something failed ("The test fails because the fixture …").
_CAUSE = re.compile(
    r"\b(?:because|caused by|due to|the (?:issue|problem|error|bug|failure|cause|reason) "
    r"(?:is|was|here is)|fails? (?:since|when|as)|is failing (?:since|because)|that's why"
    r"|this means|it turns out|the root cause)\b",
    re.IGNORECASE,
)
_MAX_SENTENCE = 240
_RECENT_MESSAGES = 4  # an assistant message and the next step or so after it
_CD_PREFIX = re.compile(r"^(?:cd\s+\S+\s*(?:&&|;)\s*)+")
_PYTHON_M = re.compile(r"^(?:python3?|py)\s+-m\s+")


def sentences(text: str) -> list[str]:
    """``text`` split into sentences (code fences and long lines left out)."""
    text = re.sub(r"```.*?```", " ", text, flags=re.DOTALL)
    found = []
    for part in _SENTENCE_END.split(text):
        part = part.strip().lstrip("-*• ").strip()
        if 8 <= len(part) <= _MAX_SENTENCE:
            found.append(part)
    return found


def command_key(command: str) -> str:
    """What makes two runs "the same command": ``cd dir &&`` and ``python -m`` aside."""
    key = _CD_PREFIX.sub("", " ".join(command.split()))
    return _PYTHON_M.sub("", key)


def _with_causes(
    commands: Sequence[CommandRun], said: Sequence[tuple[int, str]]
) -> list[CommandRun]:
    """Each failed run with the assistant's diagnosis nearest what ended it: the last cause it
    stated after the failure and before the run that fixed it (or, while it still fails,
    before the operation ran again)."""
    until: dict[int, int | None] = {}
    for streak in streaks(commands):
        for position, nxt in zip(streak.failures, [*streak.failures[1:], None], strict=True):
            ended = streak.ended.by.index if streak.ended else None
            until[position] = commands[nxt].index if nxt is not None else ended
    out = []
    for position, run in enumerate(commands):
        if not run.failed:
            out.append(run)
            continue
        again = until.get(position)
        causes = [
            s
            for at, text in said
            if at > run.index and (again is None or at < again)
            for s in sentences(text)
            if _CAUSE.search(s)
        ]
        out.append(run.model_copy(update={"cause": causes[-1]}) if causes else run)
    return out


def _active_todo(
    todo_lists: Sequence[tuple[int, list[Todo]]],
) -> tuple[str | None, tuple[int, int] | None]:
    """The todo in progress, else the last one started and not completed, with its place."""
    if not todo_lists:
        return None, None
    latest = todo_lists[-1][1]
    done = {t.content for t in latest if t.status == "completed"}
    started = [t.content for _, todos in todo_lists for t in todos if t.status == "in_progress"]
    current = next((t.content for t in latest if t.status == "in_progress"), None)
    if current is None:
        current = next((c for c in reversed(started) if c not in done), None)
    if current is None:
        return None, None
    place = next((i for i, t in enumerate(latest, 1) if t.content == current), None)
    return current, (place, len(latest)) if place else None


def _last_completion(todo_lists: Sequence[tuple[int, list[Todo]]], finals: Sequence[int]) -> int:
    """The message index of the last completed item: a todo marked done, else a final reply."""
    last, before = -1, set()
    for at, todos in todo_lists:
        done = {t.content for t in todos if t.status == "completed"}
        if done - before:
            last = at
        before = done
    if todo_lists:
        return last
    return finals[-1] if finals else -1


def _intention(said: Sequence[tuple[int, str]], since: int, last_step: int) -> str | None:
    """The plan stated in the assistant's newest words, if they are recent (a plan from many
    steps back has been carried out or dropped since) and the turn they were said in is still
    under way (a finished reply did what it announced)."""
    if not said:
        return None
    at, text = said[-1]
    if at <= since or last_step - at > _RECENT_MESSAGES:
        return None
    stated = [s for s in sentences(text) if _INTENTION.search(s)]
    return stated[-1] if stated else None


def _failing(commands: Sequence[CommandRun]) -> CommandRun | None:
    """The last failed command whose operation has not passed since (nor its work been
    committed)."""
    still = [streak.failures[-1] for streak in streaks(commands) if streak.ended is None]
    return commands[max(still)] if still else None


def progress_of(
    *,
    commands: Sequence[CommandRun],
    todo_lists: Sequence[tuple[int, list[Todo]]],
    finals: Sequence[int],
    said: Sequence[tuple[int, str]],
    changes: Sequence[tuple[int, str, bool]],
    requests: Sequence[UserRequest],
    kept: Collection[str],
    last_index: int = 0,
) -> tuple[list[CommandRun], Progress]:
    """The commands with the causes the assistant stated, and the session's progress.
    ``changes`` are (message index, path, whether an edit rather than a write) of every file
    modification."""
    commands = _with_causes(commands, said)
    todo, place = _active_todo(todo_lists)
    since = _last_completion(todo_lists, finals)
    recent = [(path, edit) for at, path, edit in changes if at > since and path in kept]
    changed = list(dict.fromkeys(path for path, _ in recent))
    edited = list(dict.fromkeys(path for path, edit in recent if edit))
    unanswered = [r for r in requests if not r.answered]
    last_final = finals[-1] if finals else -1
    return commands, Progress(
        todo=todo,
        todo_place=place,
        changed=changed,
        edited=edited,
        failing=_failing(commands),
        unanswered=unanswered,
        intention=_intention(said, last_final, last_index),
    )
