"""Does the next session know what the last one knew? Probes against the raw evaluation data.

Each probe is derived from the raw files and their curated ground truth, never from Baton's
parsing, and passes when its text appears in what is handed on (whitespace collapsed):

- goal: the thread's first real request (SWE-agent: the first user message of the raw
  ``history``; aider: the first ``####`` request that is not a ``/command``); its first 200
  characters must appear.
- requests: every real user request up to the cut; its first 40 characters must appear.
- files: every file modified up to the cut (SWE-agent: the submitted diff's files, scored on
  the whole run; aider: the cumulative "Applied edit to" files of the ground truth).
- commits: every commit hash up to the cut (aider).
- last_failure: the last SWE-agent action whose raw observation holds a Python traceback
  (its first line must appear); aider's log records no command runs.
- todos: neither dataset records a todo list, so this kind has no probes (reported as n/a).

Three hand-ons are scored at each cut, all at the same token budget: the facts-only handoff,
the offline simulator's handoff (the agent's request with the instruction appended), and a
baseline that keeps the newest messages that fit verbatim (what a plain truncation keeps);
a fourth, ``facts-1.5k``, is the facts-only handoff at the engine's default budget.
The compression ratio is the cut's transcript tokens (every message, verbatim) over the
hand-on's tokens.

After the reset at each cut (every SWE-agent trajectory, and the aider log at 20, 40, 60, 80
and 100%), the probes a handoff misses are searched for with ``search_history`` over the
cut's stored originals (``bench._history_probe``): the share found on the first page of
results (goal: at least 0.95) and the tokens of those tool results, per handoff writer.

Run: ``.venv/bin/python -m bench.continuity``
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage

from agent_core.handoff.facts import extract_facts
from agent_core.handoff.generation import generate_handoff
from agent_core.providers.simulator import SimulatorChatModel
from agent_core.tokens import TokenCounter
from agent_core.transcripts import load_transcript
from agent_core.turn import TurnSetup
from bench._history_probe import NOT_IN_MESSAGES, HistoryTally, search_recovers, stored_thread
from bench._shared import eval_dir

_COUNT = TokenCounter(model="gpt-4").count_text
BUDGET_TOKENS = 32_000  # a sixth of a 200k window: what a handoff may take of the next session
KINDS = ("goal", "requests", "files", "commits", "todos", "last_failure")
#: ``facts-1.5k``: the facts-only handoff at the engine's own budget (``TurnSetup``'s
#: ``handoff_budget_tokens``), which has to leave things out: what the history search is for.
ENGINE_BUDGET_TOKENS = next(f.default for f in fields(TurnSetup)
                            if f.name == "handoff_budget_tokens")
WRITERS = ("facts", "simulator", "baseline", "facts-1.5k")
#: After a reset the agent looks up what its hand-on missed, whichever wrote it (the
#: truncation baseline misses the most, so it tests the search hardest).
SEARCHED = WRITERS
HISTORY_GOAL = 0.95


def _flat(text: str) -> str:
    return " ".join(text.split())


@dataclass
class Probes:
    """What must survive one cut, by kind: each entry is a text to find."""

    name: str
    messages: Sequence[BaseMessage]
    metadata: dict[str, Any]
    by_kind: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class Tally:
    hits: dict[tuple[str, str], int] = field(default_factory=dict)
    totals: dict[str, int] = field(default_factory=dict)
    ratios: dict[str, list[float]] = field(default_factory=dict)
    history: dict[tuple[str, str], HistoryTally] = field(default_factory=dict)

    def add(self, writer: str, probes: Probes, text: str, ratio: float) -> dict[str, str]:
        flat = _flat(text)
        cells = {}
        for kind, needles in probes.by_kind.items():
            found = sum(_flat(n) in flat for n in needles)
            self.hits[writer, kind] = self.hits.get((writer, kind), 0) + found
            if writer == WRITERS[0]:
                self.totals[kind] = self.totals.get(kind, 0) + len(needles)
            cells[kind] = f"{found}/{len(needles)}"
        self.ratios.setdefault(writer, []).append(ratio)
        return cells


def _rendered(message: BaseMessage) -> str:
    text = f"{message.type}: {message.text}"
    for call in getattr(message, "tool_calls", None) or []:
        text += f"\n{call.get('name')} {json.dumps(call.get('args'), default=str)}"
    return text


def _baseline(messages: Sequence[BaseMessage]) -> str:
    """The newest messages that fit the budget, verbatim (no task head kept)."""
    kept, used = [], 0
    for message in reversed(messages):
        text = _rendered(message)
        cost = _COUNT(text)
        if used + cost > BUDGET_TOKENS:
            break
        kept.append(text)
        used += cost
    return "\n\n".join(reversed(kept))


def _handoff(model: Any, probes: Probes, budget: int = BUDGET_TOKENS) -> str:
    facts = extract_facts(probes.messages, metadata=probes.metadata)
    result = asyncio.run(generate_handoff(
        model, list(probes.messages), facts=facts, session_number=1, trigger="auto",
        utilization=0.8, model_name="bench", budget_tokens=budget, count_tokens=_COUNT))
    return result.artifact.to_markdown()


def _swe_agent(root: Path) -> list[Probes]:
    truth = json.loads((root / "derived" / "ground_truth.json").read_text())["trajectories"]
    cuts = []
    for rel, expected in sorted(truth.items()):
        if expected["exit_status"] is None:
            continue  # no submission: no ground truth for the files
        raw = json.loads((root / "files" / rel).read_text(encoding="utf-8"))
        first = next(m for m in raw["history"] if m["role"] == "user" and not m.get("is_demo"))
        content = first["content"]
        goal = content if isinstance(content, str) else " ".join(
            part.get("text", "") for part in content if isinstance(part, dict))
        transcript = load_transcript(root / "files" / rel)
        failing = [step["action"].strip().split("\n")[0] for step in raw.get("trajectory") or []
                   if "Traceback (most recent call last)" in str(step.get("observation"))]
        cuts.append(Probes(
            name=f"swe:{Path(rel).stem[:28]}", messages=transcript.messages,
            metadata={**transcript.metadata, "format": transcript.format},
            by_kind={"goal": [goal[:200]], "requests": [goal[:40]],
                     "files": list(expected["files_modified_from_submission"]),
                     "last_failure": failing[-1:]}))
    return cuts


def _aider(root: Path, fractions: Sequence[float] = (0.2, 0.4, 0.6, 0.8, 1.0)) -> list[Probes]:
    transcript = load_transcript(root / "chat-history.md")
    sessions = json.loads((root / "derived" / "ground_truth.json").read_text())["sessions"]
    starts = transcript.metadata["sessions"]
    cuts = []
    for fraction in fractions:
        n = max(1, round(fraction * len(starts)))
        end = starts[n]["message_index"] if n < len(starts) else len(transcript.messages)
        last_line = starts[n]["line"] - 1 if n < len(starts) else 10**9
        inside = [s for s in sessions if s["start_line"] <= last_line]
        requests = [r["text"] for s in inside for r in s["user_requests"]
                    if not r["text"].lstrip().startswith("/")]
        files = sorted({e["path"] if isinstance(e, dict) else e for s in inside
                        for e in s["files_modified_applied_edits"]})
        commits = [c["hash"] for s in inside for c in s["commits"]]
        cuts.append(Probes(
            name=f"aider:{fraction:.0%}", messages=transcript.messages[:end],
            metadata={**transcript.metadata, "format": transcript.format},
            by_kind={"goal": [requests[0][:200]], "requests": [r[:40] for r in requests],
                     "files": files, "commits": commits}))
    return cuts


def missed(probes: Probes, text: str) -> list[tuple[str, str]]:
    """The probes of a cut that ``text`` does not hold, as (kind, probe)."""
    flat = _flat(text)
    return [(kind, n) for kind, needles in probes.by_kind.items() for n in needles
            if _flat(n) not in flat]


def _hand_on(writer: str, probes: Probes) -> str:
    if writer == "baseline":
        return _baseline(probes.messages)
    if writer == "facts-1.5k":
        return _handoff(None, probes, ENGINE_BUDGET_TOKENS)
    return _handoff(None if writer == "facts" else SimulatorChatModel(), probes)


def _ratio_cell(values: list[float]) -> str:
    return f"{sum(values) / len(values):7.1f}x" if values else "      -"


def run(cuts: list[Probes]) -> Tally:
    tally = Tally()
    print(f"{'cut':32}{'writer':>11}{'tokens':>9}{'ratio':>9}  "
          + "  ".join(f"{k:>10}" for k in KINDS) + f"{'search':>10}{'search tok':>11}")
    for probes in cuts:
        source = sum(_COUNT(_rendered(m)) for m in probes.messages)
        with stored_thread(probes.messages) as (store, thread_id):
            for writer in WRITERS:
                text = _hand_on(writer, probes)
                tokens = _COUNT(text)
                cells = tally.add(writer, probes, text, source / max(tokens, 1))
                here = HistoryTally()
                if writer in SEARCHED:
                    for kind, needle in missed(probes, text):
                        found, cost = search_recovers(store, thread_id, needle)
                        here.add(found, cost)
                        tally.history.setdefault((writer, kind), HistoryTally()).add(found, cost)
                print(f"{probes.name:32}{writer:>11}{tokens:>9}{source / max(tokens, 1):>8.1f}x  "
                      + "  ".join(f"{cells.get(k, 'n/a'):>10}" for k in KINDS)
                      + f"{here.cell():>10}{here.tokens if here.missed else '-':>11}")
    return tally


def summary(tally: Tally) -> None:
    print(f"\ncoverage per probe kind (micro over all cuts; budget {BUDGET_TOKENS:,} tokens)")
    print(f"{'writer':>10}" + "".join(f"{k:>13}" for k in KINDS) + f"{'overall':>10}"
          + f"{'mean ratio':>12}")
    for writer in WRITERS:
        cells, hit_sum, total_sum = [], 0, 0
        for kind in KINDS:
            total = tally.totals.get(kind, 0)
            hits = tally.hits.get((writer, kind), 0)
            hit_sum, total_sum = hit_sum + hits, total_sum + total
            cells.append(f"{hits / total:>13.3f}" if total else f"{'n/a':>13}")
        overall = hit_sum / total_sum if total_sum else 0.0
        print(f"{writer:>10}" + "".join(cells) + f"{overall:>10.3f}"
              + f"{_ratio_cell(tally.ratios.get(writer, [])):>12}")
    counts = ", ".join(f"{k} {tally.totals.get(k, 0)}" for k in KINDS)
    print(f"probes: {counts}")
    print(f"\nafter a reset at each cut: probes the hand-on misses that search_history's first "
          f"page finds, per kind (goal >= {HISTORY_GOAL}); tokens are the search results'")
    print(f"{'writer':>10}" + "".join(f"{k:>13}" for k in KINDS) + f"{'overall':>13}"
          + f"{'searchable':>13}{'tokens':>11}{'per probe':>11}")
    for writer in SEARCHED:
        whole, searchable, cells = HistoryTally(), HistoryTally(), []
        for kind in KINDS:
            history = tally.history.get((writer, kind), HistoryTally())
            whole.absorb(history)
            if kind not in NOT_IN_MESSAGES:
                searchable.absorb(history)
            cells.append(f"{history.cell():>13}")
        share = searchable.share()
        print(f"{writer:>10}" + "".join(cells) + f"{whole.cell():>13}"
              + (f"{share:>13.3f}" if share is not None else f"{'n/a':>13}")
              + f"{whole.tokens:>11,}{whole.tokens / max(whole.missed, 1):>11,.0f}")
    print(f"searchable: every kind but {', '.join(NOT_IN_MESSAGES)} (aider's commit hashes are "
          "in its log's notes, which the model never saw, so no stored message holds them)")


def main() -> None:
    root = eval_dir()
    cuts = _swe_agent(root / "swe-agent-trajectories") + _aider(root / "aider-chat-history")
    summary(run(cuts))


if __name__ == "__main__":
    main()
