"""Does the next session know what the last one knew, what was under way, what the user
asked (also while the agent worked) and what was learned? Probes against raw data and against
Baton's own sessions, at the app's own handoff budget.

Probes come from the raw files and their curated ground truth, or from how Baton's own
sessions were built (``bench.sessions``), never from Baton's parsing:

- goal: the thread's first real request (SWE-agent: the first user message of the raw
  ``history`` up to its template's "INSTRUCTIONS:"; aider: the first ``####`` request that is
  not a ``/command``), first 200 characters.
- requests: every real user request up to the cut, first 40 characters (aider's linter
  reports, which aider sends as a user turn, are tool output: not requests).
- files: every file modified up to the cut (SWE-agent: the submitted diff's files; aider: the
  cumulative "Applied edit to" files of the ground truth; Baton's sessions: what they wrote;
  pi: the paths of its ``write``/``edit`` calls that did not fail).

pi's real session (``real-sessions/pi-mono/before-compaction.jsonl``) is cut where pi itself
compacted (its two ``compaction`` entries); its goal and requests are its raw user messages.
- commits: every commit hash up to the cut (aider).
- last_failure: the last SWE-agent action whose raw observation holds a Python traceback.
- in_progress: the todo under way at the cut (in the In Progress section).
- next_step: the assistant's last stated plan (in the Next Step section).
- queued: messages the user typed while the agent worked (in User Messages, marked queued).
- lessons: for a failure fixed later, its command, the file whose edit fixed it and the cause
  the assistant gave (in Errors and Fixes).
- todos: the open todos of Baton's sessions.
- remaining: the open work items after the one under way (in Remaining Tasks).
- at_the_cut: the agent's last words before the cut (in In Progress).
- stale_failures: commands that failed and were fixed before the cut (the same or a
  differently worded command passed, in the session or a later one); *held* when no "Still
  failing" lesson, "Failing:" line or next step names one as failing: must be all.

Work-state probes come from sessions that track their work without the todo tool (a tracker
driven through the shell, a plan file with checkboxes, a numbered plan in the agent's words, a
chain of 20 resets through six tasks) and from a real pi session cut where pi compacted, its
probes the current and next work that pi's own summary names at each cut.

A probe is *held* when its text is in the hand-on (its section, for the last four kinds), and
*named* when the hand-on names where it is stored instead (an "omitted" line: a request's
session and message, a commit's place in a ``git log`` range, a file's directory). Coverage is
held or named; the held share is printed beside it.

Writers, all at the same budget: the facts-only handoff, the offline simulator's (the agent's
request with the instruction appended), and the baseline that keeps the newest messages that
fit verbatim. The app's budget (``TurnSetup.handoff_budget_tokens``) is the headline; at 32k,
where every writer holds everything, the artifact's tokens are compared with handoff v2's on
the same cuts (``bench/continuity_v2.json``) and with the transcript's.

Cost at the same cut: the input tokens of the handoff call (the agent's request plus the
instruction) against a compaction call (the compaction prompt over the same messages), the
artifact's tokens against the transcript's.

After the hand-on, each probe neither held nor named is searched for with ``search_history``
over the cut's stored originals (``bench._history_probe``).

Run: ``.venv/bin/python -m bench.continuity``
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from agent_core import (
    ContextPolicy,
    HandoffArtifact,
    SimulatorChatModel,
    TokenCounter,
    Transcript,
    TurnSetup,
    generate_handoff,
    load_transcript,
)

# The compaction's own rendering of what it replaces (what its call sends).
from agent_core.context import COMPACTION_PROMPT, render_for_summary
from agent_core.handoff import (
    appended_request,
    extract_facts,
    named_before,
    named_commits,
    named_places,
    take_inventory,
    transcript_request,
)
from agent_core.strategies import safe_cutoff
from agent_core.transcripts import OriginalCompaction
from bench import sessions as baton_sessions
from bench._history_probe import HistoryTally, search_recovers, stored_thread
from bench._shared import REPO_ROOT, eval_dir

_COUNTER = TokenCounter(model="gpt-4")
_COUNT = _COUNTER.count_text
WIDE_BUDGET = 32_000
#: The app's own handoff budget: what a handoff may take of the next session.
APP_BUDGET = next(f.default for f in fields(TurnSetup) if f.name == "handoff_budget_tokens")
KINDS = (
    "goal",
    "requests",
    "files",
    "commits",
    "last_failure",
    "todos",
    "in_progress",
    "next_step",
    "queued",
    "lessons",
    "remaining",
    "at_the_cut",
    "stale_failures",
)
WRITERS = ("facts", "simulator", "baseline")
GOAL = 0.98
V2_REFERENCE = REPO_ROOT / "bench" / "continuity_v2.json"
LINT_REPORT = "# Fix any errors below, if possible."
_SECTION_OF = {
    "in_progress": "In Progress",
    "next_step": "Next Step",
    "queued": "User Messages",
    "lessons": "Errors and Fixes",
    "remaining": "Remaining Tasks",
    "at_the_cut": "In Progress",
}


def _flat(text: str) -> str:
    return " ".join(text.split())


@dataclass
class Cut:
    """What must survive one cut: each probe kind's texts, and where each request is stored
    (session, message) so an "omitted" line can name it."""

    name: str
    messages: Sequence[BaseMessage]
    metadata: dict[str, Any]
    by_kind: dict[str, list[str]] = field(default_factory=dict)
    places: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: The artifact this session started from (a chain), and this session's number.
    previous: HandoffArtifact | None = None
    number: int = 1


@dataclass
class HandOn:
    text: str
    artifact: HandoffArtifact | None = None
    input_tokens: int = 0


@dataclass
class Tally:
    held: dict[tuple[str, str], int] = field(default_factory=dict)
    covered: dict[tuple[str, str], int] = field(default_factory=dict)
    found: dict[tuple[str, str], int] = field(default_factory=dict)
    totals: dict[str, int] = field(default_factory=dict)
    tokens: dict[str, list[int]] = field(default_factory=dict)
    history: dict[str, HistoryTally] = field(default_factory=dict)

    def add(self, writer: str, kind: str, held: int, covered: int, total: int) -> None:
        self.held[writer, kind] = self.held.get((writer, kind), 0) + held
        self.covered[writer, kind] = self.covered.get((writer, kind), 0) + covered
        if writer == WRITERS[0]:
            self.totals[kind] = self.totals.get(kind, 0) + total


# --- cuts ----------------------------------------------------------------------------------


def _place(messages: Sequence[BaseMessage], probe: str, number: int = 1) -> tuple[int, int] | None:
    needle = _flat(probe)
    for index, message in enumerate(messages):
        if isinstance(message, HumanMessage) and _flat(message.text).startswith(needle):
            return number, index + 1
    return None


def _swe_agent(root: Path) -> list[Cut]:
    truth = json.loads((root / "derived" / "ground_truth.json").read_text())["trajectories"]
    cuts = []
    for rel, expected in sorted(truth.items()):
        if expected["exit_status"] is None:
            continue  # no submission: no ground truth for the files
        raw = json.loads((root / "files" / rel).read_text(encoding="utf-8"))
        first = next(m for m in raw["history"] if m["role"] == "user" and not m.get("is_demo"))
        content = first["content"]
        goal = (
            content
            if isinstance(content, str)
            else " ".join(part.get("text", "") for part in content if isinstance(part, dict))
        )
        # The task is what precedes the harness's INSTRUCTIONS: the rest is SWE-agent's
        # template, the same in every run, which a handoff must not carry as the goal.
        goal = goal.split("\n\nINSTRUCTIONS:")[0]
        transcript = load_transcript(root / "files" / rel)
        failing = [
            step["action"].strip().split("\n")[0]
            for step in raw.get("trajectory") or []
            if "Traceback (most recent call last)" in str(step.get("observation"))
        ]
        cuts.append(
            Cut(
                name=f"swe:{Path(rel).stem[:28]}",
                messages=transcript.messages,
                metadata={**transcript.metadata, "format": transcript.format},
                by_kind={
                    "goal": [goal[:200]],
                    "requests": [goal[:40]],
                    "files": list(expected["files_modified_from_submission"]),
                    "last_failure": failing[-1:],
                },
                places={goal[:40]: p for p in [_place(transcript.messages, goal[:40])] if p},
            )
        )
    return cuts


def _aider(root: Path, fractions: Sequence[float] = (0.2, 0.4, 0.6, 0.8, 1.0)) -> list[Cut]:
    transcript = load_transcript(root / "chat-history.md")
    sessions = json.loads((root / "derived" / "ground_truth.json").read_text())["sessions"]
    starts = transcript.metadata["sessions"]
    cuts = []
    for fraction in fractions:
        n = max(1, round(fraction * len(starts)))
        end = starts[n]["message_index"] if n < len(starts) else len(transcript.messages)
        last_line = starts[n]["line"] - 1 if n < len(starts) else 10**9
        inside = [s for s in sessions if s["start_line"] <= last_line]
        # aider's linter report goes to the model as a "####" turn, so the ground truth lists
        # it among the requests; it is tool output, not the user (12 in the whole log).
        requests = [
            r["text"]
            for s in inside
            for r in s["user_requests"]
            if not r["text"].lstrip().startswith(("/", LINT_REPORT))
        ]
        files = sorted(
            {
                e["path"] if isinstance(e, dict) else e
                for s in inside
                for e in s["files_modified_applied_edits"]
            }
        )
        commits = [c["hash"] for s in inside for c in s["commits"]]
        messages = transcript.messages[:end]
        places: dict[str, tuple[int, int]] = {}
        texts = [(i, _flat(m.text)) for i, m in enumerate(messages) if isinstance(m, HumanMessage)]
        for request in requests:
            head = _flat(request[:40])
            found = next((i for i, t in texts if t.startswith(head)), None)
            if found is not None:
                places.setdefault(request[:40], (1, found + 1))
        cuts.append(
            Cut(
                name=f"aider:{fraction:.0%}",
                messages=messages,
                metadata={**transcript.metadata, "format": transcript.format},
                by_kind={
                    "goal": [requests[0][:200]],
                    "requests": [r[:40] for r in requests],
                    "files": files,
                    "commits": commits,
                },
                places=places,
            )
        )
    return cuts


# pi's tools that write a file, by the argument naming it (pi's own tool set).
_PI_WRITES = {"write": "path", "edit": "path"}


def _pi(root: Path) -> list[Cut]:
    """One cut at each of pi's own compactions in a real pi session, where its summary ends
    (the first entry pi kept whole), probed from its raw entries: the first user message
    (goal), every user message (requests), every file a ``write``/``edit`` call changed
    without an error before the cut."""
    path = root / "pi-mono" / "before-compaction.jsonl"
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    transcript = load_transcript(path)
    cuts = []
    for number, (line, compaction) in enumerate(
        zip(
            [int(e["firstKeptEntryIndex"]) for e in entries if e.get("type") == "compaction"],
            transcript.compactions,
            strict=True,
        ),
        start=1,
    ):
        said = [e["message"] for e in entries[:line] if e.get("type") == "message"]
        requests = [
            " ".join(b.get("text", "") for b in m["content"] if b.get("type") == "text")
            if isinstance(m["content"], list)
            else str(m["content"])
            for m in said
            if m.get("role") == "user"
        ]
        failed = {
            m.get("toolCallId") for m in said if m.get("role") == "toolResult" and m.get("isError")
        }
        files = sorted(
            {
                str(b["arguments"][_PI_WRITES[b["name"]]])
                for m in said
                if m.get("role") == "assistant"
                for b in m["content"]
                if b.get("type") == "toolCall"
                and b.get("name") in _PI_WRITES
                and b.get("id") not in failed
                and isinstance(b.get("arguments"), dict)
                and b["arguments"].get(_PI_WRITES[b["name"]])
            }
        )
        messages = [
            m
            for m in transcript.messages[: _summary_end(compaction)]
            if not m.additional_kwargs.get("compact_summary")
        ]
        places = {r[:40]: p for r in requests if (p := _place(messages, r[:40])) is not None}
        cuts.append(
            Cut(
                name=f"pi:cut {number}",
                messages=messages,
                metadata={**transcript.metadata, "format": transcript.format},
                by_kind={
                    "goal": [requests[0][:200]],
                    "requests": [r[:40] for r in requests],
                    "files": files,
                },
                places=places,
            )
        )
    return cuts


def _own(
    session: baton_sessions.Session,
    *,
    previous: HandoffArtifact | None = None,
    number: int = 1,
    probes: dict[str, list[str]] | None = None,
) -> Cut:
    probes = probes if probes is not None else session.probes
    places = {}
    for text in probes.get("requests", []):
        if (where := _place(session.messages, text, number)) is not None:
            places[text] = where
    return Cut(
        name=session.name,
        messages=session.messages,
        metadata={},
        by_kind=probes,
        places=places,
        previous=previous,
        number=number,
    )


def _chained(
    sessions: Sequence[baton_sessions.Session], kinds: Sequence[str] = ()
) -> tuple[HandoffArtifact | None, list[HandoffArtifact]]:
    """The facts-only handoffs of every session but the last, each merged into the next;
    returns the last of them and all of them."""
    previous, artifacts = None, []
    for number, session in enumerate(sessions[:-1], 1):
        result = asyncio.run(
            generate_handoff(
                None,
                session.messages,
                session_number=number,
                trigger="auto",
                utilization=0.8,
                model_name="bench",
                previous=previous,
                budget_tokens=APP_BUDGET,
                count_tokens=_COUNT,
                locate=lambda i, n=number: (n, i + 1),
            )
        )
        previous = result.artifact
        artifacts.append(previous)
    return previous, artifacts


def _chain_cut(sessions: list[baton_sessions.Session], name: str, every: Sequence[str]) -> Cut:
    """The chain's last session, probed for every session's ``every`` kinds."""
    previous, _ = _chained(sessions)
    last = sessions[-1]
    probes = {**last.probes}
    probes.update({kind: [p for s in sessions for p in s.probes.get(kind, [])] for kind in every})
    probes.pop("done", None)
    cut = _own(last, previous=previous, number=len(sessions), probes=probes)
    cut.name = name
    for number, session in enumerate(sessions, 1):
        for text in session.probes.get("requests", []):
            if (where := _place(session.messages, text, number)) is not None:
                cut.places[text] = where
    return cut


def _baton(chain_resets: int = 30) -> list[Cut]:
    """Baton's own sessions; the chain's last session is probed for every session's requests
    and files, its artifact being every earlier one merged."""
    cuts = [_own(baton_sessions.todos_cut(5, n)) for n in (2, 3, 4, 5)]
    cuts += [_own(baton_sessions.queued_while_working()), _own(baton_sessions.failure_fixed())]
    cuts += [
        _own(make())
        for make in (
            baton_sessions.tracker_shell,
            baton_sessions.plan_file,
            baton_sessions.numbered_plan,
            baton_sessions.fixed_differently,
        )
    ]
    cuts.append(_chain_cut(baton_sessions.fixed_next_session(), "fixed next session", ()))
    cuts.append(_chain_cut(baton_sessions.task_chain(20), "20 resets, 6 tasks", ()))
    chain = _chain_cut(baton_sessions.chain(chain_resets), "", ("requests", "files"))
    chain.name = f"chain of {chain_resets} resets"
    return cuts + [chain]


def _summary_end(compaction: OriginalCompaction) -> int:
    """The first message after what the agent's summary covers (pi keeps its latest turns
    whole beside it)."""
    if compaction.summarized_until is None:
        return compaction.message_index
    return compaction.summarized_until


def _pi_parts(path: Path) -> tuple[Transcript, list[list[BaseMessage]]]:
    """A pi session read by the engine's importer and split where pi compacted: part ``k`` is
    what came after cut ``k - 1`` up to cut ``k`` (pi's own summaries left out)."""
    transcript = load_transcript(path)
    ends = [_summary_end(c) for c in transcript.compactions] + [len(transcript.messages)]
    parts, start = [], 0
    for end in ends:
        part = transcript.messages[start:end]
        parts.append([m for m in part if not m.additional_kwargs.get("compact_summary")])
        start = end
    return transcript, parts


def _pi_chained(root: Path) -> list[Cut]:
    """A real pi session cut where pi compacted, each cut's session merged into the handoff of
    the one before; probes: what pi's own summary names as current and next at that cut."""
    path = root / "before-compaction.jsonl"
    if not path.exists():
        return []
    transcript, parts = _pi_parts(path)
    # From pi's summaries: "### WP14: Create main-new.ts (NEXT)"; "Current Task: File
    # Reorganization … modes/interactive/components/ # MOVE from src/tui/", next "Move files".
    truth = [
        {"in_progress": ["WP14"], "next_step": ["WP14"]},
        {"in_progress": ["modes/interactive"], "next_step": ["modes/interactive"]},
    ]
    cuts, previous = [], None
    for number, (messages, probes) in enumerate(zip(parts, truth, strict=False), 1):
        cut = Cut(
            name=f"pi:chained cut {number}",
            messages=messages,
            metadata={**transcript.metadata, "format": transcript.format},
            by_kind=dict(probes),
            previous=previous,
            number=number,
        )
        cuts.append(cut)
        previous = _handoff(None, cut, APP_BUDGET).artifact
    return cuts


def chain_staleness(resets: int = 20) -> None:
    """Through a chain of resets over six tasks: at how many handoffs the next step names a
    task already done, and at how many In Progress names the task under way."""
    sessions = baton_sessions.task_chain(resets)
    _, artifacts = _chained([*sessions, sessions[-1]])
    stale = named = 0
    for session, artifact in zip(sessions, artifacts, strict=True):
        done = set(session.probes["done"])
        done |= {f"task {i.split('-')[1]}" for i in done}
        named_ids = set(re.findall(r"INV-\d+|task \d+", artifact.next_step))
        stale += bool(named_ids & done)
        named += any(session.probes["in_progress"][0] in line for line in artifact.in_progress)
    print(
        f"\ntask chain of {resets} resets through 6 tasks: next step names completed work at "
        f"{stale} of {len(artifacts)} handoffs; In Progress names the task under way at "
        f"{named} of {len(artifacts)}"
    )


# --- hand-ons ------------------------------------------------------------------------------


def _rendered(message: BaseMessage) -> str:
    text = f"{message.type}: {message.text}"
    for call in getattr(message, "tool_calls", None) or []:
        text += f"\n{call.get('name')} {json.dumps(call.get('args'), default=str)}"
    return text


def _baseline(messages: Sequence[BaseMessage], budget: int) -> HandOn:
    """The newest messages that fit the budget, verbatim (no task head kept)."""
    kept, used = [], 0
    for message in reversed(messages):
        text = _rendered(message)
        cost = _COUNT(text)
        if used + cost > budget:
            break
        kept.append(text)
        used += cost
    return HandOn("\n\n".join(reversed(kept)))


def _handoff(model: Any, cut: Cut, budget: int) -> HandOn:
    facts = extract_facts(cut.messages, metadata=cut.metadata)
    result = asyncio.run(
        generate_handoff(
            model,
            list(cut.messages),
            facts=facts,
            session_number=cut.number,
            trigger="auto",
            utilization=0.8,
            model_name="bench",
            budget_tokens=budget,
            count_tokens=_COUNT,
            previous=cut.previous,
            inventory=take_inventory(cut.messages, cut.metadata),
            locate=lambda i: (cut.number, i + 1),
        )
    )
    return HandOn(result.artifact.to_markdown(), result.artifact, result.prompt_tokens)


def hand_on(writer: str, cut: Cut, budget: int) -> HandOn:
    if writer == "baseline":
        return _baseline(cut.messages, budget)
    return _handoff(None if writer == "facts" else SimulatorChatModel(), cut, budget)


# --- scoring -------------------------------------------------------------------------------


def _section(markdown: str, heading: str) -> str:
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", markdown, re.M | re.S)
    return match.group(1) if match else ""


def _file_held(path: str, hand: HandOn) -> tuple[bool, bool]:
    if hand.artifact is None:
        return _flat(path) in _flat(hand.text), False
    shown = [f.path for f in hand.artifact.files_modified]
    held = any(s == path or s.endswith("/" + path) or path.endswith("/" + s) for s in shown)
    dirs = [m.group(1) for s in shown if (m := re.match(r"^\(omitted: \d+ files in (.+?)/", s))]
    # A probe may be absolute where the handoff names paths from the workspace root.
    return held, any(path.startswith(d + "/") or f"/{d}/" in path for d in dirs)


def _claims_failing(markdown: str, command: str) -> bool:
    """Whether the handoff hands ``command`` on as failing (a "Still failing" lesson, a
    "Failing:" line, a next step to make it pass)."""
    quoted = f"`{command}`"
    lines = [
        line
        for line in markdown.splitlines()
        if line.startswith(("- Still failing:", "- Failing:", "Make `"))
    ]
    return any(quoted in line for line in lines)


def score(cut: Cut, hand: HandOn) -> dict[str, tuple[int, int, int, list[str]]]:
    """Per kind: (held, held or named, total, the probes neither held nor named)."""
    flat = _flat(hand.text)
    artifact = hand.artifact
    out: dict[str, tuple[int, int, int, list[str]]] = {}
    for kind, needles in cut.by_kind.items():
        held = covered = 0
        missed = []
        for needle in needles:
            named = False
            if kind == "files":
                here, named = _file_held(needle, hand)
            elif kind == "stale_failures":
                here = True
            elif kind in _SECTION_OF and artifact is not None:
                body = _flat(_section(hand.text, _SECTION_OF[kind]))
                here = _flat(needle) in body and (
                    kind != "queued"
                    or re.search(rf"\[[^\]]*queued[^\]]*\] {re.escape(_flat(needle))}", body)
                    is not None
                )
            else:
                here = _flat(needle) in flat
            if kind == "stale_failures":
                here = artifact is None or not _claims_failing(hand.text, needle)
            if not here and artifact is not None:
                if kind == "requests" and needle in cut.places:
                    place, up_to = cut.places[needle], named_before(artifact.user_messages)
                    named = place in named_places(artifact.user_messages) or (
                        up_to is not None and place <= up_to
                    )
                elif kind == "commits":
                    named = needle in named_commits(artifact.completed_work, cut.by_kind[kind])
            held += here
            covered += here or named
            if not (here or named):
                missed.append(needle)
        out[kind] = (held, covered, len(needles), missed)
    return out


# --- the run -------------------------------------------------------------------------------


def run(cuts: list[Cut], budget: int = APP_BUDGET, search: bool = True) -> Tally:
    tally = Tally()
    print(f"\nbudget {budget:,} tokens")
    print(f"{'cut':30}{'writer':>10}{'tokens':>8}  " + " ".join(f"{k[:10]:>10}" for k in KINDS))
    for cut in cuts:
        store_ctx = stored_thread(cut.messages) if search else None
        store = store_ctx.__enter__() if store_ctx else None
        try:
            for writer in WRITERS:
                hand = hand_on(writer, cut, budget)
                tokens = _COUNT(hand.text)
                tally.tokens.setdefault(writer, []).append(tokens)
                cells = score(cut, hand)
                for kind, (held, covered, total, missed) in cells.items():
                    tally.add(writer, kind, held, covered, total)
                    if store is not None:
                        history = tally.history.setdefault(writer, HistoryTally())
                        for needle in missed:
                            found, cost = search_recovers(store[0], store[1], needle)
                            history.add(found, cost)
                            tally.found[writer, kind] = tally.found.get((writer, kind), 0) + found
                print(
                    f"{cut.name[:29]:30}{writer:>10}{tokens:>8}  "
                    + " ".join(
                        f"{cells[k][1]}/{cells[k][2]:<5}".rjust(10) if k in cells else f"{'':>10}"
                        for k in KINDS
                    )
                )
        finally:
            if store_ctx is not None:
                store_ctx.__exit__(None, None, None)
    return tally


def summary(tally: Tally, budget: int) -> list[str]:
    """Prints the per-kind table; returns the kinds under the goal for the v3 writers."""
    print(
        f"\ncoverage per probe kind at a budget of {budget:,} tokens (goal >= {GOAL}): "
        "held / held or named / held, named or found by search_history's first page"
    )
    print(f"{'writer':>10}" + "".join(f"{k[:14]:>19}" for k in KINDS) + f"{'mean tok':>10}")
    short = []
    for writer in WRITERS:
        cells = []
        for kind in KINDS:
            total = tally.totals.get(kind, 0)
            if not total:
                cells.append(f"{'n/a':>19}")
                continue
            held = tally.held.get((writer, kind), 0) / total
            covered = tally.covered.get((writer, kind), 0) / total
            found = (
                tally.covered.get((writer, kind), 0) + tally.found.get((writer, kind), 0)
            ) / total
            cells.append(f"{held:.2f}/{covered:.2f}/{found:.2f}".rjust(19))
            if writer != "baseline" and covered < GOAL:
                short.append(f"{writer}:{kind} {covered:.2f}")
        tokens = tally.tokens.get(writer, [])
        print(f"{writer:>10}" + "".join(cells) + f"{sum(tokens) / max(len(tokens), 1):>10,.0f}")
    print("probes: " + ", ".join(f"{k} {tally.totals.get(k, 0)}" for k in KINDS))
    for writer, history in tally.history.items():
        print(
            f"{writer}: probes neither held nor named that search_history's first page "
            f"finds: {history.cell()} ({history.tokens:,} tokens of results)"
        )
    return short


def against_v2(cuts: list[Cut]) -> None:
    """v3's facts-only artifact against v2's on the same cuts (``bench/continuity_v2.json``),
    at the app's budget and at 32k: tokens, and the probes (goal, requests, files, commits,
    last failure) each holds verbatim, v3's held or named beside them."""
    reference = json.loads(V2_REFERENCE.read_text(encoding="utf-8"))["cuts"]
    for label, budget in (("1.5k", APP_BUDGET), ("32k", WIDE_BUDGET)):
        print(
            f"\nhandoff v3 against v2 (bench/continuity_v2.json), facts-only, budget {budget:,}:"
            " tokens, probes held (v3: held / held or named)"
        )
        print(
            f"{'cut':30}{'v2 tok':>8}{'v3 tok':>8}{'v3/v2':>7}{'v2 held':>9}{'v3 held':>9}"
            f"{'v3 cov':>8}"
        )
        v2_sum = v3_sum = 0
        for key, cut in zip(reference, cuts, strict=False):
            v2 = reference[key][label]
            hand = hand_on("facts", cut, budget)
            cells = score(cut, hand)
            kinds = [k for k in v2["hits"] if k in cells]
            v2_held = sum(v2["hits"][k][0] for k in kinds)
            v3_held = sum(cells[k][0] for k in kinds)
            v3_cov = sum(cells[k][1] for k in kinds)
            tokens = _COUNT(hand.text)
            v2_sum, v3_sum = v2_sum + v2["tokens"], v3_sum + tokens
            print(
                f"{cut.name[:29]:30}{v2['tokens']:>8}{tokens:>8}{tokens / v2['tokens']:>7.2f}"
                f"{v2_held:>9}{v3_held:>9}{v3_cov:>8}"
            )
        print(f"{'all':30}{v2_sum:>8}{v3_sum:>8}{v3_sum / v2_sum:>7.2f}")


def cost(cuts: list[Cut], window: int = 200_000) -> None:
    """At each cut, as the engine would send them at a ``window``-token model: the handoff
    call's input (the agent's request plus the instruction when it fits, else the transcript
    request sized to the window) against a compaction call's (its prompt over the older part
    the compaction replaces, rendered to its character budget); the artifact's tokens against
    the transcript's."""
    print(
        f"\ncost at the same cut (cl100k, a {window:,}-token window): handoff call input vs "
        "compaction call input; artifact vs transcript"
    )
    print(
        f"{'cut':30}{'transcript':>11}{'handoff in':>11}{'compact in':>11}{'in ratio':>9}"
        f"{'artifact':>9}{'art/trans':>10}"
    )
    policy = ContextPolicy()
    for cut in cuts:
        messages = list(cut.messages)
        transcript = _COUNTER.count(messages)
        facts = extract_facts(messages, metadata=cut.metadata)
        request = appended_request(messages, None, None)
        if _COUNTER.count(request) + min(4096, window // 10) > window:
            request = transcript_request(
                messages, facts, None, None, _COUNT, window - min(4096, window // 10)
            )
        handoff_in = _COUNTER.count(request)
        older = messages[: safe_cutoff(messages, policy.keep_recent_tokens, _COUNTER.count_message)]
        summary_chars = (
            next(f.default for f in fields(TurnSetup) if f.name == "compaction_summary_tokens") * 24
        )
        compact_in = _COUNTER.count(
            [
                SystemMessage(COMPACTION_PROMPT),
                HumanMessage(render_for_summary(older, summary_chars)),
            ]
        )
        artifact = _COUNT(hand_on("facts", cut, APP_BUDGET).text)
        print(
            f"{cut.name[:29]:30}{transcript:>11,}{handoff_in:>11,}{compact_in:>11,}"
            f"{handoff_in / max(compact_in, 1):>9.1f}{artifact:>9,}"
            f"{artifact / max(transcript, 1):>10.3f}"
        )


def all_cuts() -> list[Cut]:
    root = eval_dir()
    return (
        _swe_agent(root / "swe-agent-trajectories")
        + _aider(root / "aider-chat-history")
        + _pi(root / "real-sessions")
        + _pi_chained(root / "real-sessions" / "pi-mono")
        + _baton()
    )


def main(argv: Sequence[str] | None = None, out: Callable[[str], None] = print) -> None:
    cuts = all_cuts()
    tally = run(cuts)
    short = summary(tally, APP_BUDGET)
    stale = tally.totals.get("stale_failures", 0) - tally.held.get(("facts", "stale_failures"), 0)
    print(f"facts: 'Still failing' items fixed before the cut: {stale}")
    chain_staleness()
    public = [c for c in cuts if c.name.startswith(("swe:", "aider:"))]
    against_v2(public)
    cost(cuts)
    out("\nunder the goal at the app's budget: " + (", ".join(short) or "none"))


if __name__ == "__main__":
    main()
