"""Helpers shared by the benchmark scripts: locating ``../shared/eval`` and timing."""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))


def eval_dir() -> Path:
    path = Path(os.environ.get("BATON_SHARED_DIR", REPO_ROOT.parent / "shared")) / "eval"
    if not path.exists():
        raise SystemExit(f"evaluation data not found at {path} (set BATON_SHARED_DIR)")
    return path


def time_calls(fn: Callable[[], object], *, repeat: int) -> list[float]:
    """Seconds per call, one sample a call."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return samples


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
