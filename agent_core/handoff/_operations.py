"""When a failed command stops failing: commands compared by the operation they perform, not
by their wording. Pure functions.

An operation is a program, its subcommand and its targets, flags aside: ``git add X`` and
``git add -f X`` are one operation, and so are ``git push`` and
``git push --set-upstream origin B`` (where a push goes is not what it pushes). A chained
command performs each of its parts (``mix compile && mix credo --strict F`` runs
``mix credo --strict F``); a pipeline performs its first command (``pytest | tail`` runs the
tests). A failure is resolved when later runs pass every operation it performed, or when the
work it blocked is committed or its task closed.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Sequence
from typing import NamedTuple

from agent_core.handoff._grounded import CommandRun

__all__ = [
    "Operation",
    "Resolution",
    "Streak",
    "operations",
    "resolution",
    "same_operation",
    "streaks",
]

_CHAIN = re.compile(r"&&|\|\||;|\n")
_PIPE = re.compile(r"(?<!\|)\|(?!\|)")
# Words before the program that do not change what runs.
_PREFIXES = {"sudo", "env", "time", "nohup", "exec", "command", "builtin"}
_RUNNERS = {  # runner words followed by the program they run
    ("python", "-m"),
    ("python3", "-m"),
    ("py", "-m"),
    ("uv", "run"),
    ("poetry", "run"),
    ("pipenv", "run"),
    ("bundle", "exec"),
    ("npx",),
    ("pnpx",),
    ("bunx",),
}
# Programs whose first word is a subcommand (``git push``), not a target.
_SUBCOMMANDS = {
    "git", "gh", "bd", "mix", "npm", "yarn", "pnpm", "bun", "cargo", "go", "docker",
    "kubectl", "pip", "pip3", "uv", "poetry", "bundle", "rails", "rake", "dotnet", "mvn",
    "gradle", "helm", "terraform", "jj", "hg", "svn", "deno", "composer", "brew", "apt",
    "apt-get", "make", "just", "tox", "nox", "alembic", "django-admin",
}  # fmt: skip
# Subcommands whose words say where or how, not what: the operation has no target.
_WHERE_ONLY = {
    ("git", "push"), ("git", "pull"), ("git", "fetch"), ("git", "commit"), ("git", "merge"),
    ("git", "rebase"), ("git", "checkout"), ("git", "switch"), ("git", "stash"),
    ("git", "status"), ("git", "log"), ("git", "tag"), ("git", "clone"), ("gh", "pr"),
    ("npm", "install"), ("npm", "ci"), ("yarn", "install"), ("pnpm", "install"),
}  # fmt: skip
# Flags whose next word is their value (a message, a directory), never a target.
_VALUE_FLAGS = {"-m", "--message", "-C", "-c", "--cwd", "--prefix", "-F"}
# Setting up or looking around: no part of what a chain does.
_NOT_OPERATIONS = {
    "cd", "pushd", "popd", "export", "source", ".", "set", "unset", "echo", "printf", "true",
    "false", "sleep", "ls", "pwd", "cat", "head", "tail", "wc", "clear", "which", "sh",
}  # fmt: skip
# A passing run of one of these completes the work a failure was blocking.
_CLOSERS = {
    ("git", "commit"), ("bd", "close"), ("gh", "issue close"), ("gh", "pr merge"),
    ("gh", "pr close"),
}  # fmt: skip
# Steps that follow a commit: a commit does not make them pass.
_AFTER_COMMIT = {("git", "push"), ("git", "pull"), ("git", "fetch"), ("gh", "pr create")}


class Operation(NamedTuple):
    program: str
    subcommand: str
    targets: tuple[str, ...]


class Resolution(NamedTuple):
    """How a failure stopped failing: ``at`` is the position of the run that resolved it,
    ``by`` that run, ``closed`` that it was the work being committed or closed rather than
    the operation passing."""

    at: int
    by: CommandRun
    closed: bool


def _words(part: str) -> list[str]:
    try:
        return shlex.split(part, comments=True)
    except ValueError:  # an unbalanced quote: words as typed
        return part.split()


def _operation(part: str) -> Operation | None:
    words = _words(_PIPE.split(part, maxsplit=1)[0])
    while words and (words[0] in _PREFIXES or re.match(r"^\w+=", words[0])):
        words = words[1:]
    for runner in _RUNNERS:
        if tuple(words[: len(runner)]) == runner:
            words = words[len(runner) :]
            break
    if not words:
        return None
    program = posixpath.basename(words[0])
    if program in _NOT_OPERATIONS:
        return None
    positional, skip = [], False
    for word in words[1:]:
        if skip:
            skip = False
        elif word in _VALUE_FLAGS and not (word == "-c" and program.startswith("python")):
            skip = True  # ``python -c CODE``: the code is what runs, its target
        elif not word.startswith("-") and not word.startswith(("2>", ">", "<")):
            positional.append(word.rstrip("/") or word)
    subcommand = positional.pop(0) if program in _SUBCOMMANDS and positional else ""
    if (program, subcommand) in _WHERE_ONLY:
        positional = []
    elif program == "gh" and subcommand in ("issue", "pr") and positional:
        subcommand = f"{subcommand} {positional.pop(0)}"  # gh issue close 12
    return Operation(program, subcommand, tuple(sorted(set(positional))))


def operations(command: str) -> tuple[Operation, ...]:
    """The operations ``command`` performs, in order (none for ``cd``, ``echo`` and the like)."""
    found = (_operation(part) for part in _CHAIN.split(command) if part.strip())
    return tuple(dict.fromkeys(op for op in found if op is not None))


def same_operation(one: str, other: str) -> bool:
    """Whether two commands perform the same operations, however worded."""
    ours = operations(one)
    return bool(ours) and ours == operations(other)


def _closes(run: CommandRun) -> bool:
    return any((op.program, op.subcommand) in _CLOSERS for op in operations(run.command))


def _closed_by_commit(key: tuple) -> bool:
    """Whether a commit or a closed task ends a failure of ``key``: work it was blocking, not
    a step that comes after the commit (a push)."""
    return not any(isinstance(op, Operation) and op[:2] in _AFTER_COMMIT for op in key)


class Streak(NamedTuple):
    """Failures of one operation in a row (positions in the commands) and how they ended."""

    failures: list[int]
    ended: Resolution | None


def _key(command: str) -> tuple:
    # A command of no operation (``sh x.sh``, ``./run``) is only ever itself.
    return operations(command) or (" ".join(command.split()),)


def streaks(commands: Sequence[CommandRun]) -> list[Streak]:
    """Each operation's runs of failures and what ended them (None: still failing), in the
    order they ended, those still failing last. A run of failures ends when later runs passed
    every operation it performed, or when a run commits the work or closes its task."""
    open_: dict[tuple, tuple[list[int], set]] = {}
    ended: list[Streak] = []
    for at, run in enumerate(commands):
        key = _key(run.command)
        if run.failed:
            failures = open_.get(key, ([], set()))[0]
            open_[key] = ([*failures, at], set(key))
            continue
        if not run.passed:
            continue
        done = set(_key(run.command)) | set(operations(run.command))
        for failed_key, (failures, pending) in list(open_.items()):
            pending -= done
            if not pending or (_closes(run) and _closed_by_commit(failed_key)):
                ended.append(Streak(failures, Resolution(at, run, closed=bool(pending))))
                del open_[failed_key]
    return ended + [Streak(failures, None) for failures, _ in open_.values()]


def resolution(commands: Sequence[CommandRun], position: int) -> Resolution | None:
    """How the failed run at ``position`` was resolved by the runs after it (None: it still
    fails, or failed again and that later failure speaks for it)."""
    for streak in streaks(commands):
        if position in streak.failures:
            return streak.ended if streak.failures[-1] == position or streak.ended else None
    return None
