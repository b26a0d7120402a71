"""Importing and replaying a ~3 MB session, side by side with a plain JSON parse of the file.

The session is aider's real development log (``shared/eval/aider-chat-history``, 3,240
messages) written out by ``transcripts.export`` as OpenAI chat JSON (about 3.4 MB), so the
same bytes can be given to ``json.loads``, to ``load_transcript`` (parse plus building
langchain messages), to the app's "Import a session" (parse, cut at compactions, store
every message in a scratch SQLite database) and to ``replay`` (import, token counting, a
decision per message and a handoff per reset). Measured in one run, median of ``--repeat`` runs each; the ratio to the
plain parse says what importing and replaying cost beyond reading the file at all.

Then per format, on every real file of ``shared/eval`` (``real-sessions/``: Claude Code,
Codex, pi, opencode, cline; aider's log; SWE-agent's trajectories): files, messages, tool
calls, lines skipped, and ``load_transcript``'s seconds per MB (median of ``--repeat``).
cline's metadata files are no sessions and are left out (the import names them for what they
are).

Run: ``.venv/bin/python -m bench.importing [--repeat 5] [--model anthropic:claude-sonnet-4-5]
[--window 60000]``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from langchain_core.messages import AIMessage

from agent_core import load_transcript
from agent_core import replay_file as replay
from agent_core.replay import ReplaySummary
from agent_core.transcripts import transcript_to_openai
from bench._shared import eval_dir, median, time_calls


@dataclass
class FormatRow:
    """What importing one format's real files gave."""

    files: int = 0
    messages: int = 0
    tool_calls: int = 0
    skipped: int = 0
    megabytes: float = 0.0
    seconds: float = 0.0


def real_files(root: Path) -> list[Path]:
    """The real session files under ``root`` (``shared/eval``)."""
    sessions = [
        p
        for p in sorted((root / "real-sessions").rglob("*.json*"))
        if p.is_file() and not p.name.endswith("_metadata.json")
    ]
    return [
        *sessions,
        root / "aider-chat-history" / "chat-history.md",
        *sorted((root / "swe-agent-trajectories").rglob("*.traj")),
    ]


def per_format(paths: list[Path], *, repeat: int) -> dict[str, FormatRow]:
    """Each file imported (median seconds of ``repeat``), summed by the detected format."""
    rows: dict[str, FormatRow] = defaultdict(FormatRow)
    for path in paths:
        if not path.is_file():
            continue
        transcript = load_transcript(path)
        row = rows[transcript.format]
        row.files += 1
        row.messages += len(transcript.messages)
        row.tool_calls += sum(
            len(m.tool_calls) for m in transcript.messages if isinstance(m, AIMessage)
        )
        row.skipped += sum(transcript.skipped.values())
        row.megabytes += path.stat().st_size / 1e6
        row.seconds += median(time_calls(lambda p=path: load_transcript(p), repeat=repeat))
    return dict(sorted(rows.items()))


def session_file(directory: Path) -> Path:
    """aider's log as OpenAI chat JSON in ``directory``."""
    log = eval_dir() / "aider-chat-history" / "chat-history.md"
    path = directory / "aider-session.json"
    path.write_text(json.dumps(transcript_to_openai(load_transcript(log))), encoding="utf-8")
    return path


def measure(path: Path, *, repeat: int, model: str, window: int) -> dict[str, float]:
    """Median seconds for each way of reading ``path``."""

    def parse() -> object:
        return json.loads(path.read_text(encoding="utf-8"))

    def replay_all() -> list:
        return list(replay(str(path), model=model, window=window))

    return {
        name: median(time_calls(fn, repeat=repeat))
        for name, fn in (
            ("json.loads", parse),
            ("load_transcript", lambda: load_transcript(path)),
            ("app import", _app_import(path)),
            ("replay", replay_all),
        )
    }


def _app_import(path: Path):
    """The app's import of ``path`` into a scratch SQLite database beside it."""
    from chat_app.services.conversation import threads as thread_service
    from chat_app.services.runtime.container import build_app
    from chat_app.settings import Settings

    app = build_app(Settings(db_url=f"sqlite:///{path.parent / 'bench-import.db'}"))
    data = path.read_bytes()
    return lambda: thread_service.import_session(app, "bench", path.name, data)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.importing", description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--model", default="anthropic:claude-sonnet-4-5")
    parser.add_argument("--window", type=int, default=60000)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        path = session_file(Path(scratch))
        size = path.stat().st_size
        messages = len(load_transcript(path).messages)
        replayed = replay(str(path), model=args.model, window=args.window)
        summary = next(e for e in replayed if isinstance(e, ReplaySummary))
        timings = measure(path, repeat=args.repeat, model=args.model, window=args.window)
    base = timings["json.loads"]
    print(
        f"session: aider's log as OpenAI chat JSON, {size / 1e6:.2f} MB, {messages} messages; "
        f"replay with {args.model}, window {args.window}: {summary.resets} resets, "
        f"{summary.compactions} compactions"
    )
    print(f"{'step':<18}{'median s':>10}{'x json.loads':>14}{'MB/s':>9}")
    for name, seconds in timings.items():
        print(f"{name:<18}{seconds:>10.3f}{seconds / base:>14.1f}{size / 1e6 / seconds:>9.1f}")
    print()
    print("load_transcript per format, on the real files of shared/eval:")
    print(
        f"{'format':<13}{'files':>6}{'messages':>10}{'tool calls':>12}{'skipped':>9}"
        f"{'MB':>8}{'s per MB':>10}"
    )
    for name, row in per_format(real_files(eval_dir()), repeat=args.repeat).items():
        print(
            f"{name:<13}{row.files:>6}{row.messages:>10,}{row.tool_calls:>12,}{row.skipped:>9,}"
            f"{row.megabytes:>8.2f}{row.seconds / row.megabytes:>10.3f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
