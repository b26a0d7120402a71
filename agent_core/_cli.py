"""Baton's command line: ``baton replay`` and ``baton import`` (also ``python -m agent_core``).

``replay FILE --model M`` runs the app's context pipeline (masking, then compaction or a
reset, at the app's default thresholds unless given) and prints one JSON line per mask /
compaction / reset and a summary (see :mod:`agent_core.replay._run`); on a terminal it also draws
a progress bar on stderr, and ``--report out.html`` writes a self-contained page with the
context chart, the masks, compactions and resets, and the handoffs.
``import FILE`` reads any supported transcript and writes it as OpenAI chat JSON (``-o``), the
one shape every format converts to, printing what it found.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from tqdm import tqdm

from agent_core.providers._settings import ProviderSettings
from agent_core.replay._agent_cuts import cuts_at_agent_compactions
from agent_core.replay._events import ReplayEvent
from agent_core.replay._report import render_report
from agent_core.replay._run import APP_MASK_THRESHOLD, ReplayStep, replay_policy, replay_transcript
from agent_core.transcripts import FORMAT_NAMES, FORMATS, Transcript, load_transcript
from agent_core.transcripts._export import transcript_summary, transcript_to_openai

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="baton", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    formats = ["auto", *FORMATS]
    rp = sub.add_parser("replay", help="replay a transcript through the engine")
    rp.add_argument("file")
    rp.add_argument("--format", default="auto", choices=formats)
    rp.add_argument("--model", required=True)
    rp.add_argument("--window", type=int)
    rp.add_argument("--strategy", default="auto", choices=["auto", "compact", "reset"])
    rp.add_argument("--threshold", type=float, help="reset threshold (default 0.80)")
    rp.add_argument(
        "--compact-threshold",
        type=float,
        help="compact threshold (default 0.50, or 5 points below --threshold)",
    )
    rp.add_argument(
        "--mask-threshold",
        type=_mask_threshold,
        default="app",
        help=f"mask old tool outputs from this utilization, as the app does "
        f"(default {APP_MASK_THRESHOLD:.2f}, lowered to 5 points below the "
        "compact threshold when that is lower); 'off' turns masking off",
    )
    rp.add_argument(
        "--keep-recent",
        type=int,
        help="tokens of the newest messages masking and compaction keep verbatim (default 2000)",
    )
    rp.add_argument(
        "--handoff",
        default="facts",
        help="facts (no model), simulator, or provider:model (a real model when its key is set)",
    )
    rp.add_argument(
        "--handoff-budget",
        type=int,
        default=1500,
        help="tokens each handoff artifact may take (default 1500)",
    )
    rp.add_argument(
        "--report",
        metavar="OUT.html",
        help="also write a self-contained HTML report (chart and handoffs)",
    )
    rp.add_argument(
        "--at-agent-compactions",
        action="store_true",
        help="cut where the original agent compacted, and print at each cut its own summary "
        "beside Baton's handoff, with their tokens and probe coverage",
    )
    im = sub.add_parser("import", help="read a transcript and write it as OpenAI chat JSON")
    im.add_argument("file")
    im.add_argument("--format", default="auto", choices=formats)
    im.add_argument(
        "-o",
        "--output",
        metavar="OUT.json",
        help="where to write the messages (default: only print the summary)",
    )
    return parser


def _mask_threshold(value: str) -> float | str | None:
    if value.strip().lower() in ("off", "none"):
        return None
    if value == "app":  # the default: the app's threshold (argparse passes it through here)
        return value
    try:
        return float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a fraction such as 0.35, or 'off'; got {value!r}"
        ) from None


def _said_skipped(file: str, transcript: Transcript) -> None:
    """What the reader passed over, on stderr (the JSON lines on stdout stay parseable)."""
    if note := transcript.skipped_note():
        print(f"{Path(file).name}: {note}", file=sys.stderr)


def _agent_cuts(
    args: argparse.Namespace, transcript: Transcript, providers: ProviderSettings
) -> None:
    agent = FORMAT_NAMES.get(transcript.format, transcript.format)
    if not transcript.compactions:
        raise ValueError(
            f"{Path(args.file).name}: {agent} made no compaction of its own in this file, so "
            "there is no summary of its to put beside Baton's handoff"
        )
    cuts = cuts_at_agent_compactions(
        transcript,
        model=args.model,
        handoff_model=args.handoff,
        providers=providers,
        budget_tokens=args.handoff_budget,
    )
    for cut in cuts:
        print(json.dumps({"event": "agent_cut", **cut.model_dump(mode="json")}, ensure_ascii=False))
    if args.report:
        html = render_report(Path(args.file).name, [], [], agent_cuts=cuts)
        Path(args.report).write_text(html, encoding="utf-8")


def _replay(args: argparse.Namespace, providers: ProviderSettings) -> None:
    transcript = load_transcript(args.file, format=args.format)
    _said_skipped(args.file, transcript)
    if args.at_agent_compactions:
        _agent_cuts(args, transcript, providers)
        return
    steps: list[ReplayStep] = []
    bar: tqdm | None = None

    def on_step(step: ReplayStep) -> None:
        nonlocal bar
        if bar is None:
            # Drawn on a terminal only (disable=None): a pipe or a CI log gets nothing.
            bar = tqdm(
                total=step.total,
                unit=" messages",
                file=sys.stderr,
                disable=None,
                dynamic_ncols=True,
                mininterval=0.1,
            )
        bar.update(step.message_index + 1 - bar.n)
        if args.report:
            steps.append(step)

    events: list[ReplayEvent] = []
    policy = replay_policy(
        strategy=args.strategy,
        window=args.window,
        threshold=args.threshold,
        compact_threshold=args.compact_threshold,
        mask_threshold=args.mask_threshold,
        keep_recent_tokens=args.keep_recent,
    )
    try:
        for event in replay_transcript(
            transcript,
            model=args.model,
            policy=policy,
            handoff_model=args.handoff,
            providers=providers,
            budget_tokens=args.handoff_budget,
            on_step=on_step,
        ):
            events.append(event)
            # Through tqdm, so on a shared terminal the line lands above the bar, not after it.
            line = json.dumps(event.model_dump(mode="json"), ensure_ascii=False)
            tqdm.write(line, file=sys.stdout)
            sys.stdout.flush()
    finally:
        if bar is not None:
            bar.close()
    if args.report:
        html = render_report(Path(args.file).name, steps, events)
        Path(args.report).write_text(html, encoding="utf-8")


def _import(args: argparse.Namespace) -> None:
    transcript = load_transcript(args.file, format=args.format)
    _said_skipped(args.file, transcript)
    if args.output:
        Path(args.output).write_text(
            json.dumps(transcript_to_openai(transcript), ensure_ascii=False, indent=1),
            encoding="utf-8",
        )
    print(json.dumps(transcript_summary(transcript), ensure_ascii=False))


def main(argv: list[str] | None = None) -> int:
    """The command line's entry point: the one place of the engine that reads the process's
    environment, for the provider settings a ``--handoff provider:model`` runs on (the
    command line is the composition root of its own process, as the app's start-up is)."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "replay":
            _replay(args, ProviderSettings.from_env(os.environ))
        else:
            _import(args)
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0
