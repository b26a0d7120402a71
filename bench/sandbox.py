"""Sandbox overhead: `true` in the sandbox vs a plain subprocess, on the same workspace.

A workspace of 200 files, 2 MB in all. Each sandboxed sample is a whole run as the agent's
tool pays it (pack the files, start bubblewrap, unpack them in its tmpfs, run, kill what is
left, read the workspace back and diff it for write-back, with the memory watchdog on);
each plain sample writes the same files into a directory and runs `true` there with
``subprocess.run``. Both are timed side by side in one run, interleaved, and printed as
medians, p95 and the ratio.

Run: ``.venv/bin/python -m bench.sandbox``
"""

from __future__ import annotations

import random
import shutil
import string
import subprocess
import tempfile
import time
from pathlib import Path

from agent_core import Sandbox
from agent_core.sandbox import sandbox_unavailable_reason
from bench._shared import median, p95

FILES, TOTAL_BYTES, REPEAT = 200, 2_000_000, 40


def workspace() -> dict[str, str]:
    rng = random.Random(7)
    size = TOTAL_BYTES // FILES
    alphabet = string.ascii_letters + string.digits + " \n"
    return {
        f"pkg{i % 10}/module_{i}.py": "".join(rng.choices(alphabet, k=size)) for i in range(FILES)
    }


def plain_run(files: dict[str, str]) -> None:
    root = Path(tempfile.mkdtemp(prefix="bench-plain-"))
    try:
        for path, text in files.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text, encoding="utf-8")
        subprocess.run(["/bin/sh", "-c", "true"], cwd=root, check=True)
    finally:
        shutil.rmtree(root)


def main() -> None:
    reason = sandbox_unavailable_reason()
    if reason is not None:
        raise SystemExit(f"no sandbox on this host: {reason}")
    files = workspace()
    sandbox = Sandbox()
    sandboxed, plain = [], []
    for _ in range(REPEAT):  # interleaved, so load on the machine hits both alike
        start = time.perf_counter()
        result = sandbox.run(files, "true")
        sandboxed.append(time.perf_counter() - start)
        assert result.exit_status == 0 and not result.changes, result
        start = time.perf_counter()
        plain_run(files)
        plain.append(time.perf_counter() - start)
    print(
        f"workspace: {len(files)} files, {sum(map(len, files.values())):,} bytes; "
        f"{REPEAT} runs each"
    )
    print(
        f"sandbox  `true`: median {median(sandboxed) * 1000:7.1f} ms   "
        f"p95 {p95(sandboxed) * 1000:7.1f} ms"
    )
    print(
        f"plain    `true`: median {median(plain) * 1000:7.1f} ms   p95 {p95(plain) * 1000:7.1f} ms"
    )
    print(f"ratio (median sandbox / median plain): {median(sandboxed) / median(plain):.2f}x")


if __name__ == "__main__":
    main()
