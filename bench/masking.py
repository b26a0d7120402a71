"""Observation masking on the SWE-agent trajectories and aider's log: tokens sent, resets, and
what survives.

Each trajectory is replayed call by call with a small window (``WINDOW``): before every
model call (each assistant message) the context is managed the way the middleware does it,
with the engine's own pure functions (``should_mask``/``mask_candidates``/``placeholder``,
``plan``, ``safe_cutoff``, the model-free ``facts_summary`` as the compaction summary, and
the facts-only handoff for a reset), and the prompt's tokens are added to what was sent.
Six policies side by side: nothing, masking alone, compaction alone, mask-then-compact,
resets alone, mask-then-reset.

SWE-agent's non-function-calling trajectories send a command's output back as a user
message; Baton stores it as a tool result, so those pairs are replayed as a ``run_command``
call and its result (the action from the raw ``history``), which is what masking acts on.
aider's log is replayed as one long stream the same way: a reflection (lint, test or edit
error output aider sent back on its own) that answers a reply becomes that reply's
``run_command`` call and its result; ``/commands`` aider never sent to the model are left out.
Totals are printed per dataset and for both together.

Figures:
- tokens sent: the sum over model calls of the prompt's tokens; saved is against nothing.
- over window: model calls whose prompt exceeded the window (the provider would refuse).
- resets per million tokens of work: resets over the trajectories' own tokens (every
  message once, verbatim), in millions.
- probes: the continuity probes (goal, requests, files, last failure; ``bench.continuity``)
  in the facts-only handoff written at the end of the run, from the unmasked view and from
  the masked one (facts come from the stored originals, as in the coordinator).
  For aider the probes are those of the whole log (``bench.continuity``'s 100% cut).
- search: of the probes the handoff misses, the share ``search_history`` finds in its first
  page (a stored message holding the probe), and the tokens of those tool results
  (``bench._history_probe``, SQLite's FTS5 index).

Run: ``.venv/bin/python -m bench.masking``
"""

from __future__ import annotations

import asyncio
import json
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from agent_core import (
    ContextPolicy,
    TokenCounter,
    generate_handoff,
    load_transcript,
    make_policy,
    plan,
)
from agent_core.context import MASKED, facts_summary
from agent_core.handoff import extract_facts, handoff_context_message
from agent_core.history import read_history_call
from agent_core.strategies import mask_candidates, safe_cutoff, should_mask
from agent_core.strategies import mask_placeholder as placeholder
from bench._history_probe import NOT_IN_MESSAGES, HistoryTally, search_recovers, stored_thread
from bench._shared import eval_dir
from bench.continuity import Cut, _aider, _flat, _swe_agent

WINDOW = 6_000
KEEP_RECENT = 1_000
_COUNTER = TokenCounter(model="gpt-4")
POLICIES = {
    "none": (None, None),
    "mask": ("mask", None),
    "compact": (None, "compact"),
    "mask+compact": ("mask", "compact"),
    "reset": (None, "reset"),
    "mask+reset": ("mask", "reset"),
}


def as_tool_calls(raw_history: list[dict], messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """An assistant action answered by a user-role observation, as a tool call and result."""
    out: list[BaseMessage] = []
    for index, message in enumerate(messages):
        item = raw_history[index] if index < len(raw_history) else {}
        previous = raw_history[index - 1] if index else {}
        action = previous.get("action") if isinstance(previous, dict) else None
        if (
            isinstance(message, HumanMessage)
            and out
            and isinstance(out[-1], AIMessage)
            and not out[-1].tool_calls
            and action
            and item.get("role") == "user"
        ):
            call_id = f"call_{index}"
            ai = out[-1]
            out[-1] = AIMessage(
                content=ai.content,
                id=ai.id,
                tool_calls=[
                    {"name": "run_command", "args": {"command": str(action)}, "id": call_id}
                ],
            )
            out.append(
                ToolMessage(
                    content=message.content,
                    tool_call_id=call_id,
                    name="run_command",
                    id=f"m{index}",
                )
            )
            continue
        out.append(message.model_copy(update={"id": message.id or f"m{index}"}))
    return out


_RUNNING = re.compile(r"^## Running: (?P<command>.+)$", re.MULTILINE)


def aider_as_tool_calls(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """aider's log as the model saw it, a reflection that answers a reply as that reply's
    ``run_command`` call and its result (the command is the ``## Running:`` line, if any)."""
    out: list[BaseMessage] = []
    for index, message in enumerate(messages):
        if message.additional_kwargs.get("baton_not_sent"):
            continue
        if (
            message.additional_kwargs.get("aider_reflection")
            and out
            and isinstance(out[-1], AIMessage)
            and not out[-1].tool_calls
        ):
            found = _RUNNING.search(str(message.content))
            command = found["command"].strip() if found else "aider (lint, test or edit check)"
            call_id = f"call_{index}"
            ai = out[-1]
            out[-1] = AIMessage(
                content=ai.content,
                id=ai.id,
                tool_calls=[{"name": "run_command", "args": {"command": command}, "id": call_id}],
            )
            out.append(
                ToolMessage(
                    content=message.content,
                    tool_call_id=call_id,
                    name="run_command",
                    id=f"m{index}",
                )
            )
            continue
        out.append(message.model_copy(update={"id": message.id or f"m{index}"}))
    return out


@dataclass
class Run:
    sent: int = 0
    over: int = 0
    masks: int = 0
    compactions: int = 0
    resets: int = 0
    view: list[BaseMessage] = field(default_factory=list)


def _mask(view: list[BaseMessage], positions: dict[str, int]) -> int:
    picked = mask_candidates(view, KEEP_RECENT, _COUNTER.count_message)
    for index in picked:
        message = view[index]
        reread = read_history_call(1, positions.get(message.id or "", 0))
        view[index] = message.model_copy(
            update={
                "content": placeholder(str(message.name), _COUNTER.count_message(message), reread),
                "additional_kwargs": {**message.additional_kwargs, MASKED: True},
            }
        )
    return len(picked)


def _reset(view: list[BaseMessage], originals: list[BaseMessage]) -> list[BaseMessage]:
    facts = extract_facts(originals)
    result = asyncio.run(
        generate_handoff(
            None,
            list(view),
            facts=facts,
            session_number=1,
            trigger="auto",
            utilization=0.8,
            model_name="bench",
            count_tokens=_COUNTER.count_text,
        )
    )
    head = [m for m in view[:1] if m.type == "system"]
    opening = HumanMessage(
        content=handoff_context_message(result.artifact),
        additional_kwargs={"baton_kind": "handoff"},
    )
    return head + [opening]


def replay(
    messages: Sequence[BaseMessage], policy: ContextPolicy, masking: bool, strategy: str | None
) -> Run:
    """One trajectory under one policy (see the module docstring)."""
    run, session_replies, session_start = Run(), 0, 0
    positions = {m.id or "": i for i, m in enumerate(messages, 1)}
    for index, message in enumerate(messages):
        if isinstance(message, AIMessage) and run.view:
            fraction = _COUNTER.count(run.view) / WINDOW
            if masking and should_mask(fraction, policy) and _mask(run.view, positions):
                run.masks += 1
                fraction = _COUNTER.count(run.view) / WINDOW
            if strategy is not None:
                decision = plan(fraction, policy, model_default=strategy)  # type: ignore[arg-type]
                if decision.action == "compact":
                    cut = safe_cutoff(run.view, KEEP_RECENT, _COUNTER.count_message)
                    head = 1 if run.view[0].type == "system" else 0
                    if cut - head >= 2:
                        summary = HumanMessage(
                            content=f"<summary>\n{facts_summary(run.view[head:cut])}\n</summary>",
                            additional_kwargs={"baton_kind": "summary"},
                        )
                        run.view = run.view[:head] + [summary] + run.view[cut:]
                        run.compactions += 1
                elif decision.action == "reset" and session_replies >= 2:
                    run.view = _reset(run.view, list(messages[session_start:index]))
                    run.resets, session_replies, session_start = run.resets + 1, 0, index
            tokens = _COUNTER.count(run.view)
            run.sent += tokens
            run.over += tokens > WINDOW
            session_replies += 1
        run.view.append(message)
    return run


def _handoff_text(
    view: Sequence[BaseMessage], originals: Sequence[BaseMessage], metadata: dict
) -> str:
    facts = extract_facts(originals, metadata=metadata)
    result = asyncio.run(
        generate_handoff(
            None,
            list(view),
            facts=facts,
            session_number=1,
            trigger="auto",
            utilization=0.8,
            model_name="bench",
            count_tokens=_COUNTER.count_text,
        )
    )
    return result.artifact.to_markdown()


@dataclass
class ProbeTally:
    total: int = 0
    plain: int = 0
    masked: int = 0
    search: HistoryTally = field(default_factory=HistoryTally)
    """Probes the masked handoff misses that some stored message holds."""
    unsearchable: int = 0
    """Missed probes no stored message can hold (``NOT_IN_MESSAGES``)."""

    def absorb(self, other: ProbeTally) -> None:
        self.total += other.total
        self.plain += other.plain
        self.masked += other.masked
        self.search.absorb(other.search)
        self.unsearchable += other.unsearchable


def probe(
    cut: Cut, messages: list[BaseMessage], masked_view: list[BaseMessage], tally: ProbeTally
) -> None:
    plain = _flat(_handoff_text(messages, messages, cut.metadata))
    masked = _flat(_handoff_text(masked_view, messages, cut.metadata))
    with stored_thread(messages) as (store, thread_id):
        for kind, needles in cut.by_kind.items():
            for needle in needles:
                # A handoff lists files by directory ("src/: a.py"): a file is its name there.
                seen = _flat(posixpath.basename(needle) if kind == "files" else needle)
                tally.total += 1
                tally.plain += seen in plain
                if seen in masked:
                    tally.masked += 1
                elif kind in NOT_IN_MESSAGES:
                    tally.unsearchable += 1
                else:
                    tally.search.add(*search_recovers(store, thread_id, needle))


@dataclass
class Dataset:
    """One dataset's replays: tokens sent per policy, its work, and its probes."""

    name: str
    totals: dict[str, Run] = field(default_factory=lambda: {name: Run() for name in POLICIES})
    work: int = 0
    runs: int = 0
    probes: ProbeTally = field(default_factory=ProbeTally)

    def replay_all(
        self, label: str, messages: list[BaseMessage], policy: ContextPolicy, cut: Cut | None
    ) -> None:
        self.work += sum(_COUNTER.count_message(m) for m in messages)
        self.runs += 1
        runs = {
            name: replay(messages, policy, masking is not None, strategy)
            for name, (masking, strategy) in POLICIES.items()
        }
        for name, run in runs.items():
            total = self.totals[name]
            total.sent += run.sent
            total.over += run.over
            total.masks += run.masks
            total.compactions += run.compactions
            total.resets += run.resets
        print(f"{label[:33]:34}" + "".join(f"{r.sent:>14,}" for r in runs.values()))
        if cut is not None:
            probe(cut, messages, runs["mask"].view + [], self.probes)


def _swe_dataset(root: Path, policy: ContextPolicy) -> Dataset:
    data = Dataset("SWE-agent trajectories")
    cuts = {c.name: c for c in _swe_agent(root)}
    truth = json.loads((root / "derived" / "ground_truth.json").read_text())["trajectories"]
    for rel in sorted(truth):
        path = root / "files" / rel
        raw = json.loads(path.read_text(encoding="utf-8"))["history"]
        messages = as_tool_calls(raw, load_transcript(path).messages)
        data.replay_all(Path(rel).stem, messages, policy, cuts.get(f"swe:{Path(rel).stem[:28]}"))
    return data


def _aider_dataset(root: Path, policy: ContextPolicy) -> Dataset:
    data = Dataset("aider log")
    messages = aider_as_tool_calls(load_transcript(root / "chat-history.md").messages)
    data.replay_all(
        "aider chat-history.md (whole log)", messages, policy, _aider(root, fractions=(1.0,))[0]
    )
    return data


def report(data: Sequence[Dataset]) -> None:
    """Per dataset and for all together: tokens sent and saved per policy, resets per
    million tokens of work; then the probes and what search_history recovers."""
    together = Dataset("both")
    for one in data:
        together.work += one.work
        together.runs += one.runs
        for name, run in one.totals.items():
            total = together.totals[name]
            for attr in ("sent", "over", "masks", "compactions", "resets"):
                setattr(total, attr, getattr(total, attr) + getattr(run, attr))
        together.probes.absorb(one.probes)
    for one in [*data, together]:
        base = one.totals["none"].sent
        print(f"\n{one.name}: work {one.work:,} tokens over {one.runs} replay(s)")
        print(
            f"{'policy':>14}{'tokens sent':>14}{'saved':>8}{'masks':>7}{'compact':>9}"
            f"{'resets':>8}{'over win':>10}{'resets/Mtok':>13}"
        )
        for name, run in one.totals.items():
            saved = 1 - run.sent / base if base else 0.0
            per_million = run.resets / (one.work / 1e6) if one.work else 0.0
            print(
                f"{name:>14}{run.sent:>14,}{saved:>8.1%}{run.masks:>7}{run.compactions:>9}"
                f"{run.resets:>8}{run.over:>10}{per_million:>13.1f}"
            )
        probes = one.probes
        print(
            f"probes in the final handoff: unmasked {probes.plain}/{probes.total}, "
            f"masked {probes.masked}/{probes.total}"
        )
        search = probes.search
        if search.missed:
            print(
                f"missed by the masked handoff and held by a stored message: {search.missed}; "
                f"found by search_history's first page: {search.cell()} "
                f"({search.share():.2f}), {search.tokens:,} tokens of tool results"
            )
        if probes.unsearchable:
            print(
                f"missed and held by no stored message ({', '.join(NOT_IN_MESSAGES)}): "
                f"{probes.unsearchable}"
            )


def main() -> None:
    root = eval_dir()
    policy = make_policy(keep_recent_tokens=KEEP_RECENT)
    print(
        f"window {WINDOW:,} tokens, keep recent {KEEP_RECENT:,}; thresholds mask "
        f"{policy.mask_threshold}, compact {policy.compact_threshold}, reset "
        f"{policy.reset_threshold}\n"
    )
    print(f"{'replay (tokens sent)':34}" + "".join(f"{name:>14}" for name in POLICIES))
    report(
        [
            _swe_dataset(root / "swe-agent-trajectories", policy),
            _aider_dataset(root / "aider-chat-history", policy),
        ]
    )


if __name__ == "__main__":
    main()
