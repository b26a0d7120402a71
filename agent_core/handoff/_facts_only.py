"""The handoff built from evidence alone: what a note says when no model wrote it, and what
fills (and checks) the sections a model wrote. Pure functions of ``GroundedFacts``.

Each fact is said once: the goal is the first request and is not repeated among the user
messages, as a constraint or as the next step; a constraint is listed only when the words
that state it are not already shown (they were in the part of a long message cut off);
files are listed by the file sections, not again as completed work.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Collection
from typing import Any

from agent_core.handoff._evidence import command_key
from agent_core.handoff._grounded import (
    CommandRun,
    GroundedFacts,
    Progress,
    UserRequest,
    WorkItem,
)
from agent_core.handoff._operations import operations, same_operation, streaks
from agent_core.handoff._user_text import capped, constraint_sentences, request_item, shorten

__all__ = [
    "facts_only_fields",
    "errors_and_fixes",
    "squeeze",
    "in_progress_lines",
    "next_step_line",
    "remaining_lines",
    "done_items",
    "GOAL_CHARS",
    "MESSAGE_CHARS",
    "Locate",
]

#: (session, message) where a message of the session is stored, by its index; None: unknown.
Locate = Callable[[int], "tuple[int, int] | None"]

_MAX_ERRORS = 12
#: Longest goal and user message carried verbatim; a longer one says what was cut and where
#: it is stored whole.
GOAL_CHARS = 1500
MESSAGE_CHARS = 500
# Commands that look around or clean up rather than change anything: not part of a fix.
_LOOKING = re.compile(
    r"^(?:ls|cat|head|tail|grep|rg|find|pwd|echo|cd|which|wc|sed -n|less|rm"
    r"|git (?:status|diff|log|show))\b"
)


def squeeze(text: str, limit: int) -> str:
    """Head and tail of ``text``: a command's result and a reply's conclusion usually sit at
    the end."""
    text = text.strip()
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[… {len(text) - limit} characters omitted …]\n{text[-half:]}"


def _cmd(run: CommandRun) -> str:
    return "`" + squeeze(run.command, 120).replace("\n", " ") + "`"


def exit_status(run: CommandRun) -> str:
    """How a run ended, in Baton's words (never its output)."""
    if run.exit_status is not None:
        return f"exit {run.exit_status}"
    return "error" if run.failed else "no error shown"


def _how(run: CommandRun) -> str:
    # The output line is quoted and marked as output: it is data about the failure, never
    # something the next agent is told to do.
    return f"{exit_status(run)}; output: “{run.error}”" if run.error else exit_status(run)


def _pointed_at(failed: CommandRun, path: str) -> bool:
    """Whether the failure names ``path``: in its command or in its output."""
    names = {*failed.named, *failed.command.split()}
    base = posixpath.basename(path)
    return any(n == path or n.endswith("/" + path) or posixpath.basename(n) == base for n in names)


def _flags_added(failed: str, fixed: str) -> list[str]:
    before = set(failed.split())
    return [w for w in fixed.split() if w.startswith("-") and w not in before]


def _fix(
    failed: CommandRun, span: list[CommandRun], closed: bool, scratch: Collection[str] = ()
) -> str:
    """``failed`` and what made it pass: the passing command when worded differently, the
    edits since that touch a file the failure names (never a file deleted later), the
    commands run in between; or the commit that completed the work it blocked."""
    passing = span[-1]
    same = command_key(passing.command) == command_key(failed.command)
    between = [r for r in span[:-1] if not same_operation(r.command, failed.command)]
    edited = [
        p for p in dict.fromkeys(p for r in span for p in r.changed_before) if p not in scratch
    ]
    changed = [p for p in edited if _pointed_at(failed, p)]
    others = len(edited) - len(changed)
    ran = list(
        dict.fromkeys(
            _cmd(r) for r in between if r.passed and not _LOOKING.match(command_key(r.command))
        )
    )
    parts = []
    if changed:
        parts.append(
            "editing "
            + ", ".join(changed[:6])
            + (f" (+{len(changed) - 6})" if len(changed) > 6 else "")
        )
    if ran and not closed:
        parts.append("running " + ", ".join(ran[:2]))
    if closed:
        fix = f"the work it blocked was committed or closed ({_cmd(passing)})"
        line = f"{_cmd(failed)} failed ({_how(failed)}); resolved: {fix}"
    elif same:
        if others and not parts:
            fix = f"other changes ({others} file{'s' if others > 1 else ''} it does not name)"
        else:
            fix = " and ".join(parts) if parts else "running it again, nothing changed in between"
        line = f"{_cmd(failed)} failed ({_how(failed)}); passed after {fix}"
    else:
        after = f" after {' and '.join(parts)}" if parts else ""
        line = f"{_cmd(failed)} failed ({_how(failed)}); passed as {_cmd(passing)}{after}"
        if gotcha := _gotcha(failed, passing):
            line += f"; gotcha: {gotcha}"
    return line + (f"; cause: “{failed.cause}”" if failed.cause else "")


def _gotcha(failed: CommandRun, passing: CommandRun) -> str | None:
    """The knowledge a differently worded fix holds, where the output says why."""
    added = _flags_added(command_key(failed.command), command_key(passing.command))
    error = (failed.error or "").lower()
    targets = [t for op in operations(failed.command) for t in op.targets]
    if ".gitignore" in error and {"-f", "--force"} & set(added):
        what = ", ".join(targets) or "the path"
        return f"{what} is gitignored: force-add it (`git add -f`)"
    if "upstream" in error and {"-u", "--set-upstream"} & set(added):
        return "the branch has no upstream: push with `--set-upstream`"
    if added:
        return "it needs " + " ".join(f"`{flag}`" for flag in added)
    return None


def errors_and_fixes(commands: list[CommandRun], scratch: Collection[str] = ()) -> list[str]:
    """One line per lesson: each operation still failing first (its exit status and quoted
    error output, the cause the assistant gave), then each failure that later passed, however
    the passing command was worded, with what made it pass and the diagnosis nearest the fix,
    newest first; at most a dozen. ``scratch`` are files deleted later: never a fix."""
    failing: list[tuple[int, str]] = []
    fixed: list[tuple[int, str]] = []
    for streak in streaks(commands):
        runs = [commands[i] for i in streak.failures]
        if streak.ended is None:
            last = runs[-1]
            cause = next((r.cause for r in reversed(runs) if r.cause), None)
            line = f"Still failing: {_cmd(last)} ({_how(last)})"
            failing.append(
                (streak.failures[-1], line + (f"; cause given: “{cause}”" if cause else ""))
            )
            continue
        cause = next((r.cause for r in reversed(runs) if r.cause), None)
        first = runs[0].model_copy(update={"cause": cause})
        span = list(commands[streak.failures[0] + 1 : streak.ended.at + 1])
        fixed.append((streak.ended.at, _fix(first, span, streak.ended.closed, scratch)))
    ordered = sorted(failing, reverse=True) + sorted(fixed, reverse=True)
    return [line for _, line in ordered][:_MAX_ERRORS]


def _item_line(progress: Progress) -> str | None:
    """The work item under way when a source other than the todo tool tracks it."""
    item = progress.current
    if item is None or item.source == "todo":
        return None
    how = item.evidence[-1] if item.evidence else ""
    if item.source == "plan_text":
        total = sum(1 for i in progress.items if i.source == "plan_text")
        return f"Under way: {item.id} of {total} of the plan the agent stated: “{item.title}”"
    state = item.state.replace("_", " ")
    if item.state == "open":
        peers = [i for i in progress.items if i.source == item.source and i.id] or progress.items
        done = [i for i in peers[: peers.index(item)] if i.state == "done"] if item in peers else []
        state = (
            f"the next open item after {done[-1].id or done[-1].label}, done" if done else "open"
        )
    blocker = f"; blocked by: {item.blocker}" if item.blocker else ""
    return f"Under way: {item.label} ({state}; {how}{blocker})"


def _since(progress: Progress) -> str:
    item = progress.current
    if item is not None and item.started >= 0 and item.source in ("tracker", "todo"):
        return f"{item.id} started" if item.id else "this todo started"
    return "the last completed item"


def _steered(progress: Progress, goal: str) -> list[UserRequest]:
    """The open requests the user sent after the newest evidence about the item under way:
    what the user asked for then is what is under way."""
    item = progress.current
    later = [r for r in progress.unanswered if r.text != goal]
    if item is None or item.source == "todo":
        return []
    return [r for r in later if r.index > item.updated]


def _requests_named(requests: list[UserRequest], locate: Locate | None) -> str:
    named = []
    for request in requests[-5:]:
        where = locate(request.index) if locate else None
        named.append(
            f"[{where[0]}:{where[1]}]"
            if where
            else f"“{shorten(' '.join(request.text.split()), 120)}”"
        )
    plural = "s" if len(requests) > 1 else ""
    return f"the open request{plural} {', '.join(named)} (in User Messages)"


def in_progress_lines(progress: Progress, goal: str, locate: Locate | None = None) -> list[str]:
    """What was under way at the cut: the task (the work item under way, a todo, else the open
    request, named by its place in User Messages rather than repeated), the files changed since
    it started or since the last completion (a commit, an item done), the last check run on
    them, the command still failing (its error is in Errors and Fixes), and the agent's last
    words and actions, verbatim."""
    lines = []
    item_line = _item_line(progress)
    if steered := _steered(progress, goal):
        lines.append("Answering " + _requests_named(steered, locate))
    if item_line:
        lines.append(item_line)
    elif progress.todo:
        place = (
            f" ({progress.todo_place[0]} of {progress.todo_place[1]})"
            if progress.todo_place
            else ""
        )
        lines.append(f"Todo{place}: {progress.todo}")
    elif later := [r for r in progress.unanswered if r.text != goal]:
        lines.append("Answering " + _requests_named(later, locate))
    elif progress.unanswered:
        lines.append("The goal, not finished yet")
    if progress.changed:
        named = [p + (" (edited)" if p in progress.edited else "") for p in progress.changed]
        lines.append(
            f"Changed since {_since(progress)}: "
            + ", ".join(named[:10])
            + (f" (+{len(named) - 10})" if len(named) > 10 else "")
        )
    if progress.last_check is not None and progress.last_check is not progress.failing:
        lines.append(f"Last check: {_cmd(progress.last_check)} ({_how(progress.last_check)})")
    if progress.failing is not None:
        lines.append(f"Failing: {_cmd(progress.failing)}")
    cut = []
    words = progress.last_words or ""
    if progress.next_step and progress.intention and progress.intention in words:
        words = words.replace(progress.intention, "").strip()  # Next Step quotes it already
    if words:
        cut.append(f"the agent said “{words}”")
    if progress.last_actions:
        cut.append("last actions: " + "; ".join(progress.last_actions))
    if cut:
        lines.append("At the cut: " + "; ".join(cut))
    return lines


def next_step_line(progress: Progress, goal: str = "", locate: Locate | None = None) -> str:
    """What to do first: the rest of the agent's latest plan, or its stated next step when it
    names what it acts on and was not carried out yet; else answer what the user asked since
    the item's last evidence; else make the failing command pass (when it failed in the turn
    under way, or nothing else is under way); else go on with the item under way (the todo),
    else start the next open item."""
    if progress.next_step:
        return progress.next_step
    if steered := _steered(progress, goal):
        return "Answer " + _requests_named(steered, locate)
    # A command that failed before the user's last message: the user has moved the work on.
    failing = progress.failing
    if failing is not None and (failing.index > progress.turn_start or progress.current is None):
        return f"Make {_cmd(failing)} pass ({exit_status(failing)})"
    item = progress.current
    if item is not None and item.source != "todo" and item.state != "done":
        verb = "Start" if item.state == "open" else "Go on with"
        return f"{verb} {item.named}"
    if progress.todo:
        return f"Continue the todo “{progress.todo}”"
    after = [i for i in progress.remaining if i.source != "todo"]
    return f"Start {after[0].named}" if after else ""  # else In Progress names the request


_MAX_REMAINING = 10


def _remaining(item: WorkItem) -> str:
    if not item.title_from_output:
        return item.label
    where = "the tracker" if item.source == "tracker" else "the plan file read back"
    return f"{item.id or 'an item'} (as {where} lists it: “{item.title}”)"


def remaining_lines(progress: Progress) -> list[str]:
    """The open items after the one under way, in order (open todos are listed as such)."""
    # Open todos have their own section.
    items = [i for i in progress.remaining if i.source != "todo"]
    lines = [_remaining(i) + (f" (blocked: {i.blocker})" if i.blocker else "") for i in items]
    extra = len(lines) - _MAX_REMAINING
    return lines[:_MAX_REMAINING] + ([f"(+{extra} more open)"] if extra > 0 else [])


def done_items(progress: Progress) -> list[str]:
    """Items this record shows done by a close, a tick or a table's status (a commit naming
    one is listed as the commit); of a plan file with numbered items, those items."""
    numbered = any(i.id for i in progress.items if i.source == "plan_file")
    return [
        f"Done: {i.label} ({i.evidence[-1]})"
        for i in progress.items
        if i.state == "done"
        and i.source in ("tracker", "plan_file")
        and (i.id or not numbered or i.source == "tracker")
        and i.evidence
        and not i.evidence[-1].startswith(("commit ", "read "))
    ]


def request_items(
    requests: list[UserRequest], locate: Locate | None, cap: int = MESSAGE_CHARS
) -> list[str]:
    return [
        request_item(
            r.text,
            where=locate(r.index) if locate else None,
            queued=r.queued,
            open_=not r.answered,
            cap=cap,
            times=r.times,
        )
        for r in requests
    ]


def _hidden_constraints(requests: list[UserRequest], goal_cap: int) -> list[str]:
    """Rule-like sentences in the parts of long messages that are cut off."""
    cut = [
        r.text[(goal_cap if i == 0 else MESSAGE_CHARS) :]
        for i, r in enumerate(requests)
        if len(r.text) > (goal_cap if i == 0 else MESSAGE_CHARS) + 40
    ]
    return constraint_sentences(cut)


def facts_only_fields(
    facts: GroundedFacts,
    *,
    session_number: int,
    utilization: float,
    first_session: bool = True,
    locate: Locate | None = None,
) -> dict[str, Any]:
    """Section contents built from the evidence and the user's own words alone. In the first
    session the first request is the goal; after it, every request is a user message (the
    goal comes from the previous handoff)."""
    del session_number, utilization  # the title line says both
    requests = list(facts.requests)
    goal_request = requests[0] if first_session and requests else None
    later = requests[1:] if goal_request is not None else requests
    goal = ""
    if goal_request is not None:
        where = locate(goal_request.index) if locate else None
        goal = capped(goal_request.text, GOAL_CHARS, where)
    done = [f"Commit {c.sha[:7]}: {c.message}" for c in facts.commits]
    done += [f"Completed todo: {t.content}" for t in facts.todos if t.status == "completed"]
    done += done_items(facts.progress)
    state = []
    if facts.test_runs and facts.test_runs[-1].outcome == "passed":
        last = facts.test_runs[-1]
        summary = f" ({last.summary})" if last.summary else ""
        state.append(f"Last test run `{squeeze(last.command, 200)}`: {last.outcome}{summary}.")
    elif facts.commands and not facts.commands[-1].failed:
        state.append(f"Last command: {_cmd(facts.commands[-1])} ({_how(facts.commands[-1])}).")
    if facts.progress.question:
        state.append(f"The agent's last reply asks the user: “{facts.progress.question}”")
    return {
        "goal": goal,
        "constraints": _hidden_constraints(requests, GOAL_CHARS if goal_request else MESSAGE_CHARS),
        "user_messages": request_items(later, locate),
        "completed_work": done,
        "in_progress": in_progress_lines(
            facts.progress, goal_request.text if goal_request else "", locate
        ),
        "next_step": next_step_line(
            facts.progress, goal_request.text if goal_request else "", locate
        ),
        "remaining_tasks": remaining_lines(facts.progress),
        "key_decisions": [],
        "errors_and_fixes": errors_and_fixes(facts.commands, facts.scratch_files),
        "files_read": list(facts.files_read),
        "current_state_summary": " ".join(state),
    }
