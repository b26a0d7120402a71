"""Where the third-party evaluation data lives (``../shared/eval`` beside the repo).

Tests that need it skip with a reason when it is absent; it is never copied into the repo.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent


def shared_dir() -> Path:
    return Path(os.environ.get("BATON_SHARED_DIR", REPO_ROOT.parent / "shared"))


def eval_path(*parts: str) -> Path:
    """Path under ``shared/eval``; skips the calling test when it does not exist."""
    path = shared_dir().joinpath("eval", *parts)
    if not path.exists():
        pytest.skip(f"evaluation data not found at {path} (set BATON_SHARED_DIR)")
    return path
