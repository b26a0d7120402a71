"""The handoff built from tool evidence alone: what a note says when no model wrote it, and
what fills the sections a model left empty. Pure functions of ``GroundedFacts``."""

from __future__ import annotations

from typing import Any

from agent_core.handoff.grounded import CommandRun, GroundedFacts
from agent_core.handoff.user_text import constraint_sentences

__all__ = ["facts_only_fields", "errors_and_fixes", "squeeze"]

_MAX_ERRORS = 12


def squeeze(text: str, limit: int) -> str:
    """Head and tail of ``text``: a command's result and a reply's conclusion usually sit at
    the end."""
    text = text.strip()
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[… {len(text) - limit} characters omitted …]\n{text[-half:]}"


def _how(run: CommandRun) -> str:
    return f"exit {run.exit_status}" if run.exit_status is not None else str(run.error)


def errors_and_fixes(commands: list[CommandRun]) -> list[str]:
    """Each failed command, with the later run of the same command that passed (the fix), or
    said to be still failing; newest last, at most a dozen."""
    notes: list[str] = []
    reported: set[str] = set()
    for index, run in enumerate(commands):
        if not run.failed or run.command in reported:
            continue
        later = commands[index + 1:]
        at = next((i for i, r in enumerate(later) if r.command == run.command and r.passed),
                  None)
        if at is None and any(r.command == run.command for r in later):
            continue  # a later failure of the same command reports it
        reported.add(run.command)
        cmd = squeeze(run.command, 160).replace("\n", " ")
        if at is not None:
            changed = list(dict.fromkeys(p for r in later[: at + 1] for p in r.changed_before))
            fix = ("after changing " + ", ".join(changed[:8]) if changed
                   else "when run again, with no file changed in between")
            notes.append(f"`{cmd}` failed ({_how(run)}); passed {fix}")
        else:
            notes.append(f"`{cmd}` failed ({_how(run)}) and has not passed since")
    return notes[-_MAX_ERRORS:]


def facts_only_fields(facts: GroundedFacts, *, session_number: int, utilization: float
                      ) -> dict[str, Any]:
    """Section contents built from tool evidence and the user's own words alone."""
    requests = facts.user_requests
    done = [f"Commit {c.sha}: {c.message}" for c in facts.commits]
    if facts.files_modified:
        done.append("Modified " + ", ".join(facts.modified_paths))
    done += [f"Completed todo: {t.content}" for t in facts.todos if t.status == "completed"]
    state = [f"Session {session_number} ended at {utilization:.0%} of the context window."]
    if facts.files_modified:
        state.append(f"{len(facts.files_modified)} file(s) modified according to tool calls.")
    if facts.test_runs:
        last = facts.test_runs[-1]
        summary = f" ({last.summary})" if last.summary else ""
        state.append(f"Last test run `{squeeze(last.command, 200)}`: {last.outcome}{summary}.")
    if facts.commands:
        cmd = facts.commands[-1]
        state.append(f"Last command: `{squeeze(cmd.command, 120)}` (exit {cmd.exit_status}).")
    active = [t.content for t in facts.todos if t.status == "in_progress"]
    in_progress = active or ([f"The user's latest request: {squeeze(requests[-1], 400)}"]
                             if requests else [])
    return {
        "goal": requests[0] if requests else "",
        "constraints": constraint_sentences(requests),
        "user_messages": list(requests),
        "completed_work": done,
        "in_progress": in_progress,
        "next_step": active[0] if active else (requests[-1] if requests else ""),
        "remaining_tasks": [("(blocked) " if t.status == "blocked" else "") + t.content
                            for t in facts.todos if t.status in ("pending", "blocked")],
        "key_decisions": [],
        "errors_and_fixes": errors_and_fixes(facts.commands),
        "files_read": list(facts.files_read),
        "current_state_summary": " ".join(state),
    }
