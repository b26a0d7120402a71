"""Where the work stands at a cut, from the evidence: the agent's work items from every source
(the todo tool, trackers driven through the shell, plan files, plans it stated), the one under
way and how far it got, what remains, and what comes next. Pure functions over what
:func:`agent_core.handoff._facts.extract_facts` collects.

Done comes from evidence only: a close command, a commit naming the item, a ticked box, a
todo marked completed, a later action that did a plan's step; never from the agent saying so.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace

from agent_core.handoff._artifact import Todo
from agent_core.handoff._evidence import sentences
from agent_core.handoff._grounded import CommandRun, Progress, WorkItem
from agent_core.handoff._work_plans import PlanFiles, TextPlan, heredoc_writes, text_plan
from agent_core.handoff._work_sources import ItemEvent, commit_events, shell_events

__all__ = ["WorkRecord", "work_state_of", "item_ids", "is_check"]

_CHECK_RE = re.compile(
    r"\b(pytest|py\.test|unittest|tox|nox|jest|vitest|mocha|rspec|phpunit|ruff|mypy|pyright"
    r"|basedpyright|flake8|eslint|biome|tsc|tsgo|cargo (?:test|check|build|clippy)|go (?:test|vet|build)"
    r"|(?:npm|pnpm|yarn|bun)(?: run)? (?:test|check|lint|build|typecheck)|make(?: \w+)?|mix (?:test|credo|compile)"
    r"|gradle|mvn)\b"
)
# Words that say nothing of what a sentence acts on ("Let me search for it.").
_EMPTY_WORDS = frozenset(
    [
        "i",
        "i'll",
        "i'm",
        "we",
        "we'll",
        "let",
        "let's",
        "me",
        "us",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "them",
        "they",
        "then",
        "now",
        "next",
        "will",
        "going",
        "to",
        "need",
        "should",
        "the",
        "a",
        "an",
        "and",
        "or",
        "of",
        "for",
        "with",
        "on",
        "in",
        "at",
        "by",
        "from",
        "up",
        "out",
        "into",
        "onto",
        "first",
        "also",
        "just",
        "again",
        "now",
        "do",
        "so",
        "be",
        "is",
        "are",
        "was",
        "were",
        "have",
        "has",
        "can",
        "could",
        "would",
        "my",
        "our",
        "here",
        "there",
        "what",
        "which",
        "how",
        "all",
        "some",
        "any",
        "more",
        "make",
        "sure",
        "check",
        "look",
        "see",
        "try",
        "go",
        "start",
        "continue",
        "proceed",
        "one",
        "step",
        "steps",
    ]
)
_OBJECT_RE = re.compile(r"`([^`]+)`|([\w.-]*[/.][\w./-]*\w)|\b(\w+_\w+|[a-z]+[A-Z]\w*)\b")
_VERB_EVIDENCE = (
    (re.compile(r"\bcommit", re.I), "commit"),
    (re.compile(r"\bpush", re.I), "push"),
    (
        re.compile(r"\b(?:run|re-?run)\b.*\b(?:tests?|checks?|suite|lint)\b|\bverify\b", re.I),
        "check",
    ),
)
_MAX_WORDS = 160
_ACTIONS_KEPT = 3


@dataclass
class WorkRecord:
    """What the collector saw, by message index: shell runs with their output, file writes and
    edits with their text (``whole``: the whole file), reads of files, commits, the assistant's
    words, the tool calls in short, and the file changes (path, whether an edit)."""

    shell: list[tuple[CommandRun, str]] = field(default_factory=list)
    writes: list[tuple[int, str, str, bool]] = field(default_factory=list)
    reads: list[tuple[int, str, str]] = field(default_factory=list)
    commits: list[tuple[int, str, str]] = field(default_factory=list)
    actions: list[tuple[int, str]] = field(default_factory=list)


def is_check(command: str) -> bool:
    """Whether a command checks the work (a test, lint, type check or build)."""
    return bool(_CHECK_RE.search(command))


def item_ids(text: str) -> list[str]:
    """The ids a line names: tracker ids, ``#12``, plan ids such as ``WP14`` or ``task 6``."""
    found = re.findall(
        r"(?<![\w-])(?:[A-Za-z][A-Za-z0-9]*-\d+(?:\.\d+)*|#\d+|[A-Z]{1,6}\d+(?:\.\d+)*)(?![\w-])"
        r"|\b(?:task|phase|step|stage|milestone)\s+\d+\b",
        text,
        re.I,
    )
    return list(dict.fromkeys(f.lower() for f in found))


# --- items -------------------------------------------------------------------------------------


def _todo_events(todo_lists: Sequence[tuple[int, list[Todo]]]) -> list[ItemEvent]:
    states = {"pending": "open", "completed": "done"}
    seen: dict[str, str] = {}
    events = []
    for at, todos in todo_lists:
        for todo in todos:
            key = f"todo:{todo.id or todo.content}"
            state = states.get(todo.status, todo.status)
            if seen.get(key) != state:
                seen[key] = state
                events.append(
                    ItemEvent(at, key, "todo", "the todo list", todo.content, None, state)
                )
    return events


def _fold(events: Sequence[ItemEvent]) -> dict[str, WorkItem]:
    items: dict[str, WorkItem] = {}
    for event in sorted(events, key=lambda e: e.at):
        item = items.get(event.key) or WorkItem(
            key=event.key,
            title=event.title or event.id or event.key,
            id=event.id,
            source=event.source,  # type: ignore[arg-type]
            title_from_output=event.from_output and bool(event.title),
        )
        update: dict = {"updated": event.at}
        if event.title and (
            item.title in (item.id, item.key)
            or event.source != "tracker"
            or (item.title_from_output and not event.from_output)
        ):
            update["title"] = event.title
            update["title_from_output"] = event.from_output
        if event.state and event.state != item.state:
            update["state"] = event.state
            update["evidence"] = [*item.evidence, event.evidence][-3:]
            if event.state == "in_progress" and item.started < 0:
                update["started"] = event.at
            if event.state == "done":
                update["finished"] = event.at
            update["blocker"] = event.blocker if event.state == "blocked" else None
        elif event.state and not item.evidence:
            update["evidence"] = [event.evidence]
        items[event.key] = item.model_copy(update=update)
    return items


def _plan_file_events(record: WorkRecord, own: Collection[str]) -> list[ItemEvent]:
    files = PlanFiles(own=frozenset(own))
    observed = [
        (at, path, text, whole, "wrote" if whole else "edited")
        for at, path, text, whole in record.writes
    ]
    observed += [(at, path, text, False, "read") for at, path, text in record.reads]
    for run, _ in record.shell:
        observed += [
            (run.index, path, body, True, "wrote") for path, body in heredoc_writes(run.command)
        ]
    for at, path, text, whole, how in sorted(observed, key=lambda o: o[0]):
        files.observe(at, path, text, whole=whole, how=how)
    return files.events


# --- the plan the agent stated ----------------------------------------------------------------


def _objects(text: str) -> list[str]:
    found = []
    for quoted, path, name in _OBJECT_RE.findall(text):
        value = (quoted or path or name).strip().rstrip(".,:;")
        if len(value) > 2:
            found.append(value)
    return found


def _content_words(text: str) -> list[str]:
    words = re.findall(r"[A-Za-z][\w'-]*", text.lower())
    return [w for w in words if w not in _EMPTY_WORDS and len(w) > 2]


@dataclass(frozen=True)
class _Action:
    at: int
    text: str
    kind: str  # "write", "check", "commit", "push", "command"


def _actions(record: WorkRecord) -> list[_Action]:
    acts = [_Action(at, path, "write") for at, path, _, _ in record.writes]
    for run, _ in record.shell:
        if run.failed:
            continue
        kind = (
            "check"
            if is_check(run.command)
            else "commit"
            if "git commit" in run.command
            else "push"
            if "git push" in run.command
            else "command"
        )
        acts.append(_Action(run.index, run.command, kind))
    return sorted(acts, key=lambda a: a.at)


def _did(sentence: str, actions: Sequence[_Action], since: int) -> bool:
    """Whether an action at or after ``since`` carried out what ``sentence`` names."""
    later = [a for a in actions if a.at >= since]
    for value in _objects(sentence):
        base = posixpath.basename(value.rstrip("/"))
        if any(
            value in a.text or (a.kind == "write" and posixpath.basename(a.text) == base)
            for a in later
        ):
            return True
    for pattern, kind in _VERB_EVIDENCE:
        if pattern.search(sentence) and any(a.kind == kind for a in later):
            return True
    return False


def _plan_steps(plan: TextPlan, actions: Sequence[_Action]) -> list[WorkItem]:
    """The plan's steps: done when a later action did one, or a later step was done."""
    did = [_did(step, actions, plan.at) for step in plan.steps]
    last = max((n for n, d in enumerate(did) if d), default=-1)
    items = []
    for n, step in enumerate(plan.steps):
        done = n <= last
        evidence = (
            "an action after the plan did it"
            if did[n]
            else "a later step of the plan was done"
            if done
            else f"stated at message {plan.at + 1}"
        )
        items.append(
            WorkItem(
                key=f"step:{plan.at}:{n + 1}",
                title=step,
                id=f"step {n + 1}",
                source="plan_text",
                state="done" if done else "open",
                evidence=[evidence],
                started=plan.at,
                finished=plan.at if done else -1,
            )
        )
    return items


# --- under way, next ---------------------------------------------------------------------------


def _current(items: Sequence[WorkItem], todo: str | None) -> WorkItem | None:
    if todo is not None:
        found = next((i for i in items if i.source == "todo" and i.title == todo), None)
        if found is not None:
            return found
    planned = [i for i in items if i.source == "plan_file"]
    ticked = max((i.updated for i in planned if i.state == "done"), default=-1)
    # A plan-file item left part-ticked before a later one was finished was passed over.
    under_way = [
        i
        for i in items
        if i.state == "in_progress"
        and i.source != "plan_text"
        and (i.source != "plan_file" or i.updated >= ticked)
    ]
    if under_way:
        return max(under_way, key=lambda i: i.started)
    # The plan's own items (its numbered headings, when it has them) in order: the first open
    # one after the last done one comes next.
    planned = [i for i in planned if i.id] or planned
    last_done = max((n for n, i in enumerate(planned) if i.state == "done"), default=-1)
    after = [i for i in planned[last_done + 1 :] if i.state == "open"]
    if last_done >= 0 and after:
        return after[0]
    return next((i for i in items if i.source == "plan_text" and i.state == "open"), None)


def _has_object(sentence: str) -> bool:
    body = re.sub(
        r"^.{0,30}?\b(?:I'll|I will|I'm going to|let me|let's|next,? I|I need to)\b",
        "",
        sentence,
        flags=re.I,
    )
    return bool(_objects(body)) or len(_content_words(body)) >= 2


def _next_step(
    progress: Progress,
    steps: Sequence[WorkItem],
    plan: TextPlan | None,
    actions: Sequence[_Action],
    said_at: int,
    newest_done: int,
) -> str:
    remaining_steps = [s for s in steps if s.state == "open"]
    if plan is not None and remaining_steps and plan.at >= newest_done:
        step, *rest = remaining_steps
        then = "; then " + "; ".join(f"“{s.title}”" for s in rest[:3]) if rest else ""
        number = (step.id or "").split()[-1]
        return f"Step {number} of {len(steps)} of the plan: “{step.title}”{then}"
    intention = progress.intention
    if (
        intention
        and said_at >= newest_done
        and _has_object(intention)
        and not _did(intention, actions, said_at + 1)
    ):
        return f"“{intention}”"
    return ""


def _last_words(said: Sequence[tuple[int, str]]) -> tuple[int, str | None]:
    if not said:
        return -1, None
    at, text = said[-1]
    found = sentences(text)
    words = " ".join(found[-2:]) if found else " ".join(text.split())
    if len(words) > _MAX_WORDS:
        words = "…" + words[-_MAX_WORDS:]
    return at, words or None


def work_state_of(
    progress: Progress,
    record: WorkRecord,
    *,
    todo_lists: Sequence[tuple[int, list[Todo]]],
    said: Sequence[tuple[int, str]],
    changes: Sequence[tuple[int, str, bool]],
    kept: Collection[str],
    turn_start: int = -1,
    finals: Sequence[int] = (),
) -> Progress:
    """``progress`` completed with the work state: the items, the one under way, the files
    changed since it started or since the last completion (commit, item done), the last check
    since, the agent's last words and actions, and the next step."""
    events = _todo_events(todo_lists) + shell_events(record.shell) + _plan_file_events(record, kept)
    # A commit naming an item's id is evidence about that item, whichever source listed it.
    keys = {}
    for event in events:
        if event.id:
            keys.setdefault(event.id, event.key)
    events += [
        replace(e, key=keys.get(e.id or "", e.key)) for e in commit_events(record.commits, keys)
    ]
    items = list(_fold(events).values())
    newest_done = max((i.finished for i in items if i.state == "done"), default=-1)
    newest_done = max(newest_done, max((at for at, _, _ in record.commits), default=-1))
    actions = _actions(record)
    # A plan belongs to the turn under way: stated after the last finished reply, or in it
    # when actions followed (a reply that ends its turn does what it says, or nothing).
    last_final = finals[-1] if finals else -1
    acted = max((a.at for a in actions), default=-1)
    plan = text_plan(
        [(at, t) for at, t in said if at >= last_final and (at != last_final or acted > at)]
    )
    steps = _plan_steps(plan, actions) if plan and plan.at >= newest_done else []
    current = _current([*items, *steps], progress.todo)
    # A tracker or todo item says when it started; a plan-file item is ticked after the work.
    started = current.started if current and current.source in ("tracker", "todo") else -1
    since = max(newest_done, started)
    update: dict = {"items": items or steps, "current": current, "turn_start": turn_start}
    if since >= 0:
        recent = [(path, edit) for at, path, edit in changes if at > since and path in kept]
        update["changed"] = list(dict.fromkeys(path for path, _ in recent))
        update["edited"] = list(dict.fromkeys(path for path, edit in recent if edit))
    checks = [run for run, _ in record.shell if run.index > since and is_check(run.command)]
    update["last_check"] = checks[-1] if checks else None
    said_at, update["last_words"] = _last_words(said)
    # At the cut: the turn under way (a finished reply's words are in the record already).
    # A finished reply is not under way; one that ends asking the user something is where the
    # work stands until the user answers.
    if said_at in finals and said_at > turn_start:
        words = update["last_words"] or ""
        update["question"] = words if words.rstrip().endswith("?") else None
    if said_at <= turn_start or said_at in finals:
        update["last_words"] = None
    start = max(turn_start, last_final)
    update["last_actions"] = [text for at, text in record.actions[-_ACTIONS_KEPT:] if at > start]
    update["next_step"] = _next_step(progress, steps, plan, actions, said_at, newest_done)
    if progress.todo is None and current is not None:
        # The item under way stands where a todo would: the evidence checks name it.
        place = [i for i in update["items"] if i.source == current.source]
        update["todo"] = current.label
        update["todo_place"] = (place.index(current) + 1, len(place)) if current in place else None
    return progress.model_copy(update=update)
