"""Where an agent's work items come from, read as events (:mod:`agent_core.handoff._work_plans`
reads the plans it wrote down): tracker commands run through the shell (beads ``bd``,
``gh issue``/``gh pr``, ids in branch names and commit messages). Pure functions; each event
says what proves it. :mod:`agent_core.handoff._work_state` folds them into items."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from agent_core.handoff._grounded import CommandRun

__all__ = ["ItemEvent", "shell_events", "commit_events", "commit_ids", "ID_RE"]


@dataclass(frozen=True)
class ItemEvent:
    """A work item seen at message ``at``; ``state`` None only names or titles it."""

    at: int
    key: str
    source: str
    evidence: str
    title: str | None = None
    id: str | None = None
    state: str | None = None
    blocker: str | None = None
    #: The title was read from a tool's output (a tracker listing, a file read back): data
    #: about the item, never words to act on.
    from_output: bool = False


# --- trackers driven through the shell --------------------------------------------------------

#: Jira/Linear-style ids (``ABC-123``, beads' ``X-12.6``), wherever they are written.
ID_RE = re.compile(r"\b[A-Z][A-Z0-9]*-\d+(?:\.\d+)*\b")
_PAREN_ID_RE = re.compile(r"\(([A-Za-z][\w]*-[\w]+(?:\.\d+)*)\)")
_CLOSES_RE = re.compile(r"\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?)\s+#(\d+)\b", re.I)
_VALUE_FLAGS = frozenset(
    [
        "--status",
        "-s",
        "--title",
        "-t",
        "--reason",
        "-r",
        "--priority",
        "-p",
        "--type",
        "--description",
        "-d",
        "--assignee",
        "-a",
        "--label",
        "-l",
        "--add-label",
        "--remove-label",
        "--body",
        "-b",
        "--repo",
        "-R",
        "--notes",
        "--parent",
        "--deps",
        "--message",
        "-m",
        "--comment",
        "-c",
        "--base",
        "--head",
    ]
)
_STATUS = {
    "open": "open",
    "todo": "open",
    "in_progress": "in_progress",
    "in-progress": "in_progress",
    "doing": "in_progress",
    "blocked": "blocked",
    "closed": "done",
    "done": "done",
    "completed": "done",
}
_BD_CREATED_RE = re.compile(r"Created issue:?\s+([\w.-]+)", re.I)
_BD_LINE_RE = re.compile(
    r"^\s*(?:[○◐●✓✗]\s+)?(?P<id>[A-Za-z][\w]*-[\w]+(?:\.\d+)*)\s+(?:\[[^\]]*\]\s+)*"
    r"(?P<status>open|in_progress|blocked|closed)\b\s*(?:[-:]\s*)?(?P<title>.*)$",
    re.M,
)
_GH_URL_RE = re.compile(r"/(?:issues|pull)/(\d+)\b")
_SEGMENT_RE = re.compile(r"&&|\|\||;|\n")


def _issue(
    at: int, ident: str, evidence: str, title: str | None, state: str | None, **more
) -> ItemEvent:
    """A tracker event about the issue ``ident``."""
    return ItemEvent(at, f"id:{ident}", "tracker", evidence, title, ident, state, **more)


def _json_records(output: str) -> list[dict]:
    """The records of a tracker's ``--json`` output, if that is what it printed."""
    if not output.lstrip().startswith(("[", "{")):
        return []
    try:
        value = json.loads(output)
    except ValueError:
        return []
    records = value if isinstance(value, list) else [value]
    return [r for r in records if isinstance(r, dict)]


def _options(words: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """Positional words and ``--flag value`` options of a command line."""
    positional: list[str] = []
    options: dict[str, str] = {}
    at = 0
    while at < len(words):
        word = words[at]
        if word.startswith("-") and "=" in word:
            name, value = word.split("=", 1)
            options[name] = value
        elif word in _VALUE_FLAGS and at + 1 < len(words):
            options[word] = words[at + 1]
            at += 1
        elif not word.startswith("-"):
            positional.append(word)
        at += 1
    return positional, options


def _option(options: dict[str, str], *names: str) -> str | None:
    return next((options[n] for n in names if n in options), None)


def _segments(command: str) -> Iterable[list[str]]:
    for segment in _SEGMENT_RE.split(command):
        try:
            words = shlex.split(segment)
        except ValueError:
            continue
        if words:
            yield words


def _bd(words: list[str], output: str, at: int, evidence: str) -> list[ItemEvent]:
    sub, (positional, options) = words[1] if len(words) > 1 else "", _options(words[2:])
    events: list[ItemEvent] = []
    if sub == "create":
        title = _option(options, "--title", "-t") or (positional[0] if positional else None)
        found = _BD_CREATED_RE.search(output) or _BD_LINE_RE.search(output)
        ident = found.group(1) if found else None
        if title or ident:
            key = f"id:{ident}" if ident else f"title:{title}"
            events.append(ItemEvent(at, key, "tracker", evidence, title, ident, "open"))
    elif sub in ("update", "close", "reopen"):
        status = (
            "done"
            if sub == "close"
            else "open"
            if sub == "reopen"
            else _STATUS.get((_option(options, "--status", "-s") or "").lower())
        )
        blocker = _option(options, "--notes", "--reason", "-r") if status == "blocked" else None
        title = _option(options, "--title", "-t")
        events += [_issue(at, i, evidence, title, status, blocker=blocker) for i in positional]
    elif sub in ("list", "ready", "show", "blocked"):
        for record in _json_records(output):
            ident, title = str(record.get("id") or ""), str(record.get("title") or "") or None
            state = _STATUS.get(str(record.get("status", "")).lower())
            if ident:
                events.append(_issue(at, ident, evidence, title, state, from_output=True))
        for found in _BD_LINE_RE.finditer(output):
            title, state = found.group("title").strip() or None, _STATUS[found.group("status")]
            events.append(_issue(at, found.group("id"), evidence, title, state, from_output=True))
    return events


def _gh(words: list[str], output: str, at: int, evidence: str) -> list[ItemEvent]:
    if len(words) < 3 or words[1] not in ("issue", "pr"):
        return []
    sub, (positional, options) = words[2], _options(words[3:])
    title = _option(options, "--title", "-t")
    if sub == "create":
        found = _GH_URL_RE.search(output)
        ident = f"#{found.group(1)}" if found else None
        key = f"id:{ident}" if ident else f"title:{title}"
        return [ItemEvent(at, key, "tracker", evidence, title, ident, "open")] if title else []
    state = {"close": "done", "merge": "done", "reopen": "open"}.get(sub)
    label = (_option(options, "--add-label") or "").lower()
    if sub == "edit" and label:
        state = "blocked" if "blocked" in label else "in_progress" if "progress" in label else None
    if state is None and not (sub == "edit" and title):
        return []
    numbers = [m.group(0) for p in positional[:1] if (m := re.search(r"\d+$", p))]
    return [_issue(at, f"#{n}", evidence, title, state) for n in numbers]


def _branch(words: list[str], at: int, evidence: str) -> list[ItemEvent]:
    if len(words) < 4 or words[:2] not in (["git", "checkout"], ["git", "switch"]):
        return []
    if words[2] not in ("-b", "-c", "-B", "-C"):
        return []
    return [
        _issue(at, ident, evidence, None, "in_progress")
        for ident in dict.fromkeys(ID_RE.findall(words[3]))
    ]


def shell_events(shell: Sequence[tuple[CommandRun, str]]) -> list[ItemEvent]:
    """Tracker events of every command that did not fail: ``bd``, ``gh issue|pr`` and new
    branches named after an item."""
    events: list[ItemEvent] = []
    for run, output in shell:
        if run.failed:
            continue
        for words in _segments(run.command):
            evidence = "`" + " ".join(words)[:100] + "`"
            if words[0] == "bd":
                events += _bd(words, output, run.index, evidence)
            elif words[0] == "gh":
                events += _gh(words, output, run.index, evidence)
            elif words[0] == "git":
                events += _branch(words, run.index, evidence)
    return events


def commit_ids(message: str, known: Iterable[str] = ()) -> list[str]:
    """The item ids a commit message names: ``(X-12.6)``, ``ABC-123``, ``fixes #12``, and any
    id already known from the tracker."""
    found = [*_PAREN_ID_RE.findall(message), *ID_RE.findall(message)]
    found += [f"#{n}" for n in _CLOSES_RE.findall(message)]
    found += [k for k in known if re.search(rf"(?<![\w-]){re.escape(k)}(?![\w-])", message)]
    return list(dict.fromkeys(found))


def commit_events(
    commits: Sequence[tuple[int, str, str]], known: Iterable[str] = ()
) -> list[ItemEvent]:
    """A commit naming an item is its evidence of being done (``wip`` commits: under way)."""
    known = list(known)
    events = []
    for at, sha, message in commits:
        state = "in_progress" if message.lower().startswith("wip") else "done"
        title = ID_RE.sub("", _PAREN_ID_RE.sub("", message)).strip(" :-") or None
        for ident in commit_ids(message, known):
            evidence = f"commit {sha[:7]}: {message[:100]}"
            events.append(_issue(at, ident, evidence, title, state))
    return events
