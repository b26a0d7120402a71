"""``baton`` / ``python -m agent_core``: JSON lines in a pipe, a bar on a terminal, an HTML
report, and ``import`` writing OpenAI chat JSON that reads back the same."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import threading
from pathlib import Path

from agent_core.transcripts import load_transcript
from tests.agent_core.replay.test_replay import _thread
from tests.shared_data import REPO_ROOT


def _thread_file(tmp_path: Path, requests: int = 6) -> Path:
    path = tmp_path / "thread.json"
    path.write_text(
        json.dumps(_thread([f"request {n}" for n in range(requests)])), encoding="utf-8"
    )
    return path


_REPLAY = ("replay", "--model", "anthropic:claude-sonnet-4-5", "--window", "4000")


def test_in_a_pipe_stdout_is_only_json_lines_and_stderr_is_empty(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agent_core", _REPLAY[0], str(_thread_file(tmp_path)), *_REPLAY[1:]],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert events[-1]["event"] == "summary" and events[-1]["resets"] >= 1
    assert done.stderr == ""


def test_on_a_terminal_stderr_shows_a_progress_bar_and_stdout_stays_json(tmp_path: Path) -> None:
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # 100 columns
    process = subprocess.Popen(
        [sys.executable, "-m", "agent_core", _REPLAY[0], str(_thread_file(tmp_path)), *_REPLAY[1:]],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=follower,
        text=True,
    )
    os.close(follower)
    terminal = bytearray()

    def drain() -> None:  # read while it runs, so a full pty buffer never blocks the child
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                return
            if not chunk:
                return
            terminal.extend(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    stdout, _ = process.communicate(timeout=120)
    reader.join(timeout=10)
    os.close(leader)
    assert process.returncode == 0
    assert [json.loads(line)["event"] for line in stdout.splitlines()][-1] == "summary"
    drawn = terminal.decode()
    total = len(json.loads(_thread_file(tmp_path).read_text()))
    assert re.search(rf"\r100%\|[^|]+\| {total}/{total} \[.* messages/s\]", drawn), drawn[-300:]
    # Each JSON line went to stdout, above the bar: none of it reached the terminal.
    assert '"event"' not in drawn


def test_report_draws_the_context_and_marks_every_reset(tmp_path: Path) -> None:
    report = tmp_path / "out.html"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent_core",
            _REPLAY[0],
            str(_thread_file(tmp_path)),
            *_REPLAY[1:],
            "--report",
            str(report),
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    resets = [e for e in map(json.loads, done.stdout.splitlines()) if e["event"] == "reset"]
    html = report.read_text(encoding="utf-8")
    path = re.search(r'<path class="tokens" d="([^"]+)"', html).group(1)
    total = len(json.loads(_thread_file(tmp_path).read_text()))
    assert path.count("L") == total - 1  # one point per message
    assert html.count('class="mark reset"') == len(resets) >= 1
    assert html.count('class="card reset"') == len(resets)
    # Self-contained: nothing for the browser to fetch.
    assert not re.search(r"(src|href)\s*=|<script|@import|url\(", html)


def _replay_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "agent_core", "replay", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_replay_masks_first_as_the_app_does_and_the_report_marks_each_mask(tmp_path: Path) -> None:
    thread, report = str(_thread_file(tmp_path)), tmp_path / "out.html"
    common = ("--model", "anthropic:claude-sonnet-4-5", "--window", "8000", "--keep-recent", "800")
    done = _replay_cli(thread, *common, "--report", str(report))
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    masks = [e for e in events if e["event"] == "mask"]
    summary = events[-1]
    # The app's default threshold; each mask shrinks the context before anything else.
    assert summary["mask_threshold"] == 0.35 and summary["masks"] == len(masks) >= 3
    for mask in masks:
        assert mask["utilization"] >= 0.35
        assert 0 < mask["tokens_after"] < mask["tokens_before"]
        assert mask["utilization_after"] < mask["utilization"]
    first_reset = next(e for e in events if e["event"] == "reset")
    assert masks[0]["message_index"] < first_reset["message_index"]
    html = report.read_text(encoding="utf-8")
    assert html.count('class="mark mask"') == len(masks)
    assert html.count('class="card mask"') == len(masks)

    off = _replay_cli(thread, *common, "--mask-threshold", "off")
    unmasked = [json.loads(line) for line in off.stdout.splitlines()]
    assert unmasked[-1]["masks"] == 0 and unmasked[-1]["mask_threshold"] is None
    assert not any(e["event"] == "mask" for e in unmasked)


def test_a_mask_threshold_at_or_above_the_compact_threshold_is_refused(tmp_path: Path) -> None:
    done = _replay_cli(str(_thread_file(tmp_path)), "--model", "gpt-4o", "--mask-threshold", "0.6")
    assert done.returncode == 2 and done.stdout == ""
    assert "mask threshold (60%) must be below the compact threshold (50%)" in done.stderr
    typo = _replay_cli(str(_thread_file(tmp_path)), "--model", "gpt-4o", "--mask-threshold", "x")
    assert typo.returncode == 2 and "expected a fraction such as 0.35, or 'off'" in typo.stderr


def test_import_writes_openai_chat_that_reads_back_the_same(tmp_path: Path) -> None:
    source = _thread_file(tmp_path, requests=2)
    out = tmp_path / "exported.json"
    done = subprocess.run(
        [sys.executable, "-m", "agent_core", "import", str(source), "-o", str(out)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    summary = json.loads(done.stdout)
    assert summary["tool_calls"] == 6 and summary["roles"] == {"assistant": 8, "tool": 6, "user": 2}
    original, back = load_transcript(source), load_transcript(out, format="openai")
    assert [(type(m), m.content, getattr(m, "tool_calls", None)) for m in back.messages] == [
        (type(m), m.content, getattr(m, "tool_calls", None)) for m in original.messages
    ]
    assert back.metadata["source_format"] == "openai"


def test_the_baton_script_runs_the_same_cli(tmp_path: Path) -> None:
    env = {**os.environ, "BATON_PYTHON": sys.executable}
    done = subprocess.run(
        [str(REPO_ROOT / "scripts" / "baton"), "import", str(_thread_file(tmp_path, requests=1))],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(done.stdout)["messages"] == 8  # a request, 3 calls and results, a reply
