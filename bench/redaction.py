"""How ``redact_text`` scales with a line's length: every log line and error message passes
through it, and a long base64 blob must not make it quadratic.

Lines of growing length (a blob, then a URL with credentials) are redacted; printed are the
milliseconds per line at each length and the ratio to the previous length. A line four times
as long should take about four times as long (linear), not sixteen (quadratic). Nothing here
asserts on time.

Run: ``.venv/bin/python -m bench.redaction [--repeat 5]``
"""

from __future__ import annotations

import argparse
import time

from agent_core import redact_text

LENGTHS = (25_000, 100_000, 400_000, 1_600_000)
SECRET = "sk-bench-0123456789abcdef"


def _line(length: int) -> str:
    return "payload " + "A" * length + f" sent to https://user:{SECRET}@host/v1"


def _milliseconds(text: str, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        redacted = redact_text(text)
        best = min(best, time.perf_counter() - started)
    assert SECRET not in redacted  # the work measured is the real one
    return best * 1000


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per length (best kept)")
    args = parser.parse_args(argv)
    print(
        f"{'length':>9} {'ms/line':>9} {'x previous':>11}  (4x the length: ~4 linear, ~16 quadratic)"
    )
    previous: float | None = None
    for length in LENGTHS:
        ms = _milliseconds(_line(length), args.repeat)
        ratio = f"{ms / previous:.1f}" if previous else "-"
        print(f"{length:>9,} {ms:>9.2f} {ratio:>11}")
        previous = ms


if __name__ == "__main__":
    main()
