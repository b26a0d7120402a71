"""Importing and replaying a ~3 MB session, side by side with a plain JSON parse of the file.

The session is aider's real development log (``shared/eval/aider-chat-history``, 3,240
messages) written out by ``transcripts.export`` as OpenAI chat JSON (about 3.4 MB), so the
same bytes can be given to ``json.loads``, to ``load_transcript`` (parse plus building
langchain messages), to the app's "Import a session" (parse, cut at compactions, store
every message in a scratch SQLite database) and to ``replay`` (import, token counting, a
decision per message and a handoff per reset). Measured in one run, median of ``--repeat`` runs each; the ratio to the
plain parse says what importing and replaying cost beyond reading the file at all.

Run: ``.venv/bin/python -m bench.importing [--repeat 5] [--model anthropic:claude-sonnet-4-5]
[--window 60000]``.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

from agent_core import load_transcript, transcript_to_openai
from agent_core import replay_file as replay
from bench._shared import eval_dir, median, time_calls


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
    from chat_app.db.migrate import migrate
    from chat_app.services.conversation import importing
    from chat_app.services.runtime.runtime import backend

    url = f"sqlite:///{path.parent / 'bench-import.db'}"
    os.environ["REFLEX_DB_URL"] = url
    migrate(url)
    data = path.read_bytes()
    app = backend()
    return lambda: importing.import_session(app, "bench", path.name, data)


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
        summary = list(replay(str(path), model=args.model, window=args.window))[-1]
        timings = measure(path, repeat=args.repeat, model=args.model, window=args.window)
    base = timings["json.loads"]
    print(
        f"session: aider's log as OpenAI chat JSON, {size / 1e6:.2f} MB, {messages} messages; "
        f"replay with {args.model}, window {args.window}: {summary['resets']} resets, "
        f"{summary['compactions']} compactions"
    )
    print(f"{'step':<18}{'median s':>10}{'x json.loads':>14}{'MB/s':>9}")
    for name, seconds in timings.items():
        print(f"{name:<18}{seconds:>10.3f}{seconds / base:>14.1f}{size / 1e6 / seconds:>9.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
