"""A model-written handoff checked against the evidence: where the two disagree, the
evidence's item is added to the section and the disagreement is recorded, so the next session
gets both and the card can show where the model was wrong or silent. Pure functions."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence

from agent_core.handoff._evidence import command_key
from agent_core.handoff._facts_only import errors_and_fixes, in_progress_lines
from agent_core.handoff._grounded import GroundedFacts

__all__ = ["agree_with_evidence", "drop_ungrounded"]

_WORD = re.compile(r"[a-z0-9]+")
# A sentence saying the user asked, decided or wants something.
_USER_CLAIM = re.compile(
    r"\b(?:the )?user(?:'s)?\b[^.;:]{0,40}?\b(?:asked|asks|wants|wanted|requested|requests"
    r"|request|decided|decides|decision|chose|told|said|says|instructed|instructs|prefers"
    r"|approved|agreed|confirmed|would like|needs|expects)\b(?P<what>[^.;]*)",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_FILLER = {"the", "that", "and", "for", "with", "thi", "to", "after", "before", "it"}
_CLAIM_FIELDS = ("in_progress", "remaining_tasks", "key_decisions", "current_state_summary")
# Consecutive words a model item shares with a tool's output (and not the user's words) to
# count as repeating it.
_ECHO_WORDS = 8


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2}


def _mentions(texts: Iterable[str], subject: str) -> bool:
    """Whether any text names ``subject``: verbatim, or with most of its words."""
    subject_words = _words(subject)
    for text in texts:
        if subject.lower() in text.lower():
            return True
        if subject_words and len(subject_words & _words(text)) >= 0.7 * len(subject_words):
            return True
    return False


def _texts(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def agree_with_evidence(
    fields: dict, facts: GroundedFacts, goal: str, draft: dict
) -> tuple[dict, list[str]]:
    """``fields`` (the model's ``draft`` sections, the evidence's where it left one empty)
    completed from the evidence where the model missed or contradicted it, and one line per
    disagreement."""
    progress = facts.progress
    in_progress = list(fields.get("in_progress") or [])
    lessons = list(fields.get("errors_and_fixes") or [])
    completed = _texts(draft.get("completed_work"))
    disagreements: list[str] = []
    said = [
        t
        for key in (
            "in_progress",
            "errors_and_fixes",
            "next_step",
            "current_state_summary",
            "remaining_tasks",
        )
        for t in _texts(draft.get(key))
    ]
    evidence = in_progress_lines(progress, goal)
    if progress.todo and not _mentions(_texts(draft.get("in_progress")), progress.todo):
        disagreements.append(
            f"In progress: the todo list has “{progress.todo}” under way; the model did not name it"
        )
        in_progress.insert(0, evidence[0])
    # The evidence of where the work stands is added wherever the model left it out: the files
    # changed since the last completed item, the command still failing.
    model_said = _texts(draft.get("in_progress"))
    for line in (e for e in evidence if e.startswith(("Changed since", "Failing:"))):
        if line not in in_progress and not (
            line.startswith("Changed since")
            and all(
                any(posixpath.basename(path) in text for text in model_said)
                for path in progress.changed
            )
        ):
            in_progress.append(line)
    if progress.todo and _mentions(completed, progress.todo):
        disagreements.append(
            f"Completed work: the model lists “{progress.todo}” as done; the todo list does not"
        )
    failing = progress.failing
    if failing is not None and not any(
        command_key(failing.command) in command_key(t) for t in said if t
    ):
        disagreements.append(
            f"Errors: `{failing.command[:120]}` still fails; the model did not say so"
        )
        lessons = [
            line for line in errors_and_fixes(facts.commands) if line.startswith("Still failing")
        ] + lessons
    later = [r for r in progress.unanswered if r.text != goal]
    if later and not progress.todo and not any(_mentions(said, r.text) for r in later):
        disagreements.append(
            "In progress: the user's latest request is not answered yet; the "
            "model did not mention it"
        )
        in_progress.insert(0, evidence[0])
    return (
        {
            **fields,
            "in_progress": list(dict.fromkeys(in_progress)),
            "errors_and_fixes": list(dict.fromkeys(lessons)),
        },
        disagreements,
    )


def _shingles(text: str) -> set[tuple[str, ...]]:
    words = text.lower().split()
    return {tuple(words[i : i + _ECHO_WORDS]) for i in range(len(words) - _ECHO_WORDS + 1)}


def _stems(text: str) -> list[str]:
    return [w.rstrip("s")[:6] for w in _WORD.findall(text.lower())]


_NEGATION = {"not", "never", "don't", "dont", "no", "without", "nothing"}


def _grounded_claim(sentence: str, user_texts: Sequence[str]) -> bool:
    """Whether what the sentence says the user asked or decided is in a user message: most of
    its words there, and none of them negated ("Do not push" grounds no push)."""
    claim = _USER_CLAIM.search(sentence)
    if claim is None:
        return True
    what = {w for w in _stems(claim.group("what")) if len(w) > 2} - _FILLER
    if not what:
        return True
    for text in user_texts:
        words = _stems(text)
        if len(what & set(words)) < 0.7 * len(what):
            continue
        negated = {w for i, w in enumerate(words) if set(words[max(0, i - 3) : i]) & _NEGATION}
        if not what & negated:
            return True
    return False


def _echoed(shingles: set[tuple[str, ...]], texts: Sequence[str]) -> set[tuple[str, ...]]:
    """Which of ``shingles`` occur in ``texts``: one pass over their words, a tuple built only
    where a shingle could start (tool output can run to megabytes)."""
    starts = {shingle[0] for shingle in shingles}
    found = set()
    for text in texts:
        words = text.lower().split()
        for i in range(len(words) - _ECHO_WORDS + 1):
            if words[i] in starts and (window := tuple(words[i : i + _ECHO_WORDS])) in shingles:
                found.add(window)
    return found


def drop_ungrounded(
    fields: dict, user_texts: Sequence[str], tool_texts: Sequence[str]
) -> tuple[dict, list[str]]:
    """A model's In Progress, Remaining Tasks, Key Decisions and State without what no user
    message grounds: a sentence saying the user asked or decided something the user never
    wrote, or text repeated from a tool's output (tool output is data, never a task), with
    one line per removal for the card's corrections."""
    said = [
        text
        for key in _CLAIM_FIELDS
        for value in [fields.get(key)]
        for text in (value if isinstance(value, list) else [value])
        if isinstance(text, str)
    ]
    ours = set().union(*map(_shingles, said)) if said else set()
    tool = _echoed(ours, tool_texts) - _echoed(ours, user_texts) if ours else set()
    out, removed = dict(fields), []

    def kept(text: str, name: str) -> bool:
        if _shingles(text) & tool:
            removed.append(f"{name}: removed “{text[:160]}”: it repeats a tool's output")
            return False
        if not _grounded_claim(text, user_texts):
            removed.append(f"{name}: removed “{text[:160]}”: no user message says so")
            return False
        return True

    for key in _CLAIM_FIELDS:
        name = key.replace("_", " ").capitalize().replace("Current state summary", "State")
        value = fields.get(key)
        if isinstance(value, list):
            out[key] = [item for item in value if not isinstance(item, str) or kept(item, name)]
        elif isinstance(value, str) and value:
            out[key] = " ".join(s for s in _SENTENCE.split(value) if s and kept(s, name))
    return out, removed
