"""Does a facts-only handoff name the files a session really modified?

Scores ``files_modified`` of the model-free handoff (``generate_handoff(None, ...)``: grounded
facts only) against independent ground truth in the shared evaluation data:

- SWE-agent trajectories: the files of the submitted diff (``files_modified_from_submission``);
  CTF runs submit a flag, no diff, and must yield no modified files. Scored twice: from the tool
  calls alone, and with the trajectory's submission metadata (the run's final deliverable).
- aider's own chat history, replayed as one long stream and cut after 20/40/60/80/100 % of its
  sessions: the cumulative files of the session commits that resolve in aider's git history
  (``files_modified_git_verified``), and the cumulative "Applied edit to" files.

Run: ``.venv/bin/python -m bench.handoff_recall``
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent_core import TokenCounter, generate_handoff, load_transcript
from agent_core.handoff import extract_facts
from bench._shared import eval_dir

_COUNT = TokenCounter(model="gpt-4").count_text


def _facts_only_files(messages: Sequence, metadata: dict[str, Any]) -> tuple[list[str], int]:
    """Files of the facts-only handoff, and the artifact's size in tokens."""
    facts = extract_facts(messages, metadata=metadata)
    result = asyncio.run(
        generate_handoff(
            None,
            messages,
            facts=facts,
            session_number=1,
            trigger="auto",
            utilization=0.8,
            model_name="none",
            count_tokens=_COUNT,
        )
    )
    return [f.path for f in result.artifact.files_modified], result.artifact_tokens


def _scores(predicted: Sequence[str], truth: Sequence[str]) -> tuple[int, int, int]:
    """(true positives, predicted, expected) as sets."""
    p, t = set(predicted), set(truth)
    return len(p & t), len(p), len(t)


def _ratio(hit: int, total: int) -> str:
    return "1.000 (vacuous)" if total == 0 else f"{hit / total:.3f}"


def swe_agent_table(root: Path) -> None:
    truth = json.loads((root / "derived" / "ground_truth.json").read_text())["trajectories"]
    rows, totals = [], {"tools": [0, 0, 0], "submission": [0, 0, 0]}
    ctf_clean = {"tools": 0, "submission": 0}
    ctf_total = 0
    unscored = []
    for rel, expected in sorted(truth.items()):
        transcript = load_transcript(root / "files" / rel)
        gold = expected["files_modified_from_submission"]
        if expected["exit_status"] is None:
            # No info.submission in the file, so the derived truth is empty by construction
            # (this demonstration's submit tool does print a diff).
            unscored.append(Path(rel).name)
            continue
        ctf = "/ctf/" in rel
        ctf_total += ctf
        cells = []
        for mode in ("tools", "submission"):
            meta = {"format": transcript.format}
            if mode == "submission":
                meta |= transcript.metadata
            files, _ = _facts_only_files(transcript.messages, meta)
            tp, np_, nt = _scores(files, gold)
            totals[mode] = [a + b for a, b in zip(totals[mode], (tp, np_, nt), strict=True)]
            ctf_clean[mode] += ctf and not files
            cells.append(",".join(files) or "-")
        rows.append((Path(rel).name[:38], ",".join(gold) or "-", *cells))
    print("SWE-agent trajectories: files_modified of the facts-only handoff vs submitted diff")
    print(f"{'trajectory':40}{'submitted diff':40}{'tools only':48}with submission")
    for name, gold, tools, sub in rows:
        print(f"{name:40}{gold[:38]:40}{tools[:46]:48}{sub}")
    for mode, (tp, np_, nt) in totals.items():
        print(
            f"  {mode:>10}: precision {_ratio(tp, np_)}  recall {_ratio(tp, nt)}  "
            f"(micro over {len(rows)} runs; {tp} hits, {np_} predicted, {nt} expected); "
            f"CTF runs with no modified files: {ctf_clean[mode]}/{ctf_total}"
        )
    print(f"  not scored (no info.submission, so no ground truth): {', '.join(unscored)}")


def _cumulative(sessions: list[dict], last_line: int, key: str) -> set[str]:
    files: set[str] = set()
    for session in sessions:
        if session["start_line"] <= last_line:
            files.update(e["path"] if isinstance(e, dict) else e for e in session[key])
    return files


def aider_table(root: Path, cuts: Sequence[float] = (0.2, 0.4, 0.6, 0.8, 1.0)) -> None:
    transcript = load_transcript(root / "chat-history.md")
    truth = json.loads((root / "derived" / "ground_truth.json").read_text())["sessions"]
    starts = transcript.metadata["sessions"]
    print("\naider chat history: facts-only handoff at cut points vs cumulative ground truth")
    print(
        f"{'cut':>6}{'sessions':>10}{'messages':>10}{'files':>7}{'tokens':>8}"
        f"{'git-verified P':>16}{'R':>7}{'n':>5}{'applied-edit P':>16}{'R':>7}{'n':>5}"
    )
    for fraction in cuts:
        n_sessions = max(1, round(fraction * len(starts)))
        end = (
            starts[n_sessions]["message_index"]
            if n_sessions < len(starts)
            else len(transcript.messages)
        )
        last_line = starts[n_sessions]["line"] - 1 if n_sessions < len(starts) else 10**9
        meta = {**transcript.metadata, "format": transcript.format}
        files, tokens = _facts_only_files(transcript.messages[:end], meta)
        cells = []
        for key in ("files_modified_git_verified", "files_modified_applied_edits"):
            tp, np_, nt = _scores(files, sorted(_cumulative(truth, last_line, key)))
            cells.append(f"{_ratio(tp, np_)[:5]:>16}{_ratio(tp, nt)[:5]:>7}{nt:>5}")
        print(
            f"{fraction:>6.0%}{n_sessions:>10}{end:>10}{len(files):>7}{tokens:>8}" + "".join(cells)
        )


def main() -> None:
    root = eval_dir()
    swe_agent_table(root / "swe-agent-trajectories")
    aider_table(root / "aider-chat-history")


if __name__ == "__main__":
    main()
