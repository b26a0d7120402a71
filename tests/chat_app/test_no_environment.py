"""The app reads its environment in one place: its settings, read once at start-up.

``chat_app/settings.py`` reads the environment into ``Settings``; the composition root builds
the ``App`` from them and the use cases, states and middlewares read that App's settings
(``rxconfig.py``, read before any App, calls ``read_settings`` too).
What runs before any App exists, or starts a process of its own, reads its own process's
environment: each such module is named here with the reason.
"""

from __future__ import annotations

from pathlib import Path

import chat_app
from tests.agent_core.test_no_environment import environment_reads

REPO = Path(chat_app.__file__).parent.parent

#: Modules that read (or write) their process's environment, and why.
ENTRY_POINTS = {
    "chat_app/settings.py": "the one place the app's settings are read, once, at start-up",
    "chat_app/chat_app.py": (
        "sets Reflex's socket buffer default in the environment, where Reflex reads it"
    ),
    "chat_app/supervision.py": (
        "the supervisor writes the worker count into GRANIAN_WORKERS before the workers start"
    ),
    "chat_app/serving.py": (
        "the supervisor turns REFLEX_OPLOCK_ENABLED off before the workers inherit it"
    ),
    "chat_app/admin_link.py": "the command line's --base-url default (BATON_PUBLIC_URL)",
    "chat_app/db/settings.py": (
        "the deployment's shape (database URL, workers, turn process, start lane, pool), "
        "which rxconfig, the supervisor and the engine's pool need before any App"
    ),
    "chat_app/services/runtime/turn_process.py": (
        "the turn process inherits this process's environment, plus its holder tag"
    ),
}


def _readers() -> dict[str, list[int]]:
    files = [REPO / "rxconfig.py", *sorted((REPO / "chat_app").rglob("*.py"))]
    return {
        path.relative_to(REPO).as_posix(): lines
        for path in files
        if (lines := environment_reads(path.read_text(encoding="utf-8")))
    }


def test_no_other_app_module_reads_the_environment() -> None:
    readers = _readers()
    unexpected = {name: lines for name, lines in readers.items() if name not in ENTRY_POINTS}
    assert not unexpected, (
        f"app modules read the environment (read the App's settings instead): {unexpected}"
    )
    # An entry point that no longer reads its environment leaves the list.
    assert set(readers) == set(ENTRY_POINTS)
