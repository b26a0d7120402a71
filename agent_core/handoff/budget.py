"""Fitting an artifact to its token budget, least valuable content first.

Never trimmed: the goal, the constraints, the first and the latest user message, the next
step, files a tool call proves, open todos. User messages in between are shortened (oldest
first, their head kept) before any commit is dropped from the completed work. As the very
last resort the first user message is shortened when it is the goal, which keeps it verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agent_core.handoff.artifact import HandoffArtifact
from agent_core.handoff.user_text import shorten

__all__ = ["fit_to_budget", "TokenCount"]

TokenCount = Callable[[str], int]

_OMITTED_RE = re.compile(r"^\((\d+) earlier completed items omitted\)$")
_MESSAGE_FLOORS = (400, 160, 60)  # user messages are shortened in rounds, head kept


def _cut(text: str, floor: int = 80) -> str:
    """Shorten long text by a third (never below ``floor`` characters)."""
    if len(text) <= floor:
        return text
    return text[: max(floor, len(text) * 2 // 3)].rstrip() + "…"


def _omit_done(a: HandoffArtifact, *, commits: bool) -> HandoffArtifact | None:
    """The oldest completed item (commits only when ``commits``) goes into a counted marker."""
    done, omitted = a.completed_work, 0
    if done and (marker := _OMITTED_RE.match(done[0])):
        done, omitted = done[1:], int(marker.group(1))
    for index, item in enumerate(done[:-1]):  # the newest item always stays
        if commits or not item.startswith("Commit "):
            rest = done[:index] + done[index + 1:]
            return a.model_copy(update={
                "completed_work": [f"({omitted + 1} earlier completed items omitted)", *rest]})
    return None


def _shorten_middle_message(a: HandoffArtifact) -> HandoffArtifact | None:
    messages = a.user_messages
    for floor in _MESSAGE_FLOORS:
        for index in range(1, len(messages) - 1):
            if len(messages[index]) > floor + 1:
                shorter = [*messages[:index], shorten(messages[index], floor),
                           *messages[index + 1:]]
                return a.model_copy(update={"user_messages": shorter})
    return None


def _trim_steps(a: HandoffArtifact) -> HandoffArtifact | None:
    """One step of trimming, least valuable first; None when nothing more can go."""
    if a.files_read:
        return a.model_copy(update={"files_read": a.files_read[1:]})
    decisions = [d.split("\n")[0][:200] for d in a.key_decisions]
    if decisions != a.key_decisions:
        return a.model_copy(update={"key_decisions": decisions})
    if (smaller := _omit_done(a, commits=False)) is not None:
        return smaller
    if (smaller := _shorten_middle_message(a)) is not None:
        return smaller
    for name in ("key_decisions", "errors_and_fixes"):
        if getattr(a, name):
            return a.model_copy(update={name: getattr(a, name)[1:]})
    if unverified := [f for f in a.files_modified if not f.verified]:
        return a.model_copy(update={"files_modified": [f for f in a.files_modified
                                                       if f is not unverified[-1]]})
    if (smaller := _omit_done(a, commits=True)) is not None:
        return smaller
    for name in ("current_state_summary", "remaining_tasks", "in_progress", "completed_work"):
        value = getattr(a, name)
        shorter = _cut(value) if isinstance(value, str) else [_cut(v) for v in value]
        if shorter != value:
            return a.model_copy(update={name: shorter})
    first = a.user_messages[0] if a.user_messages else ""
    if first == a.goal and len(first) > _MESSAGE_FLOORS[1] + 1:
        # The goal above holds the same text verbatim: its second copy is what can give.
        return a.model_copy(update={
            "user_messages": [shorten(first, _MESSAGE_FLOORS[1]), *a.user_messages[1:]]})
    return None


def fit_to_budget(artifact: HandoffArtifact, budget_tokens: int, count: TokenCount
                  ) -> tuple[HandoffArtifact, int]:
    """Trim until the markdown fits ``budget_tokens`` (see the module docstring for what is
    never trimmed); returns the artifact and its size in tokens."""
    markdown = artifact.to_markdown()
    tokens = count(markdown)
    while tokens > budget_tokens:
        # Trim by characters (cheap) to where the last count says the budget is, then count
        # again: a long thread's artifact is not re-tokenized after every small step.
        target = len(markdown) * budget_tokens // tokens
        smaller = _trim_steps(artifact)
        while smaller is not None:
            artifact, markdown = smaller, smaller.to_markdown()
            if len(markdown) <= target:
                break
            smaller = _trim_steps(artifact)
        if smaller is None and count(markdown) > budget_tokens:
            break
        tokens = count(markdown)
    artifact = HandoffArtifact.model_validate(artifact.model_dump())
    return artifact, count(artifact.to_markdown())
