"""The process's one :class:`~chat_app.services.runtime.container.App`, and its accessor.

Reflex makes the pages' states itself, so they cannot be handed the app: they reach it through
:func:`root`, the only accessor. The web process builds it at start-up (a lifespan task of
``chat_app.chat_app``) from the settings read once from the environment; a test installs one
built on its own database (``tests/conftest.py``) and removes it after.
"""

from __future__ import annotations

import threading

from chat_app.services.runtime.container import App, build_app
from chat_app.settings import read_settings

__all__ = ["install", "installed", "root", "uninstall"]

_app: App | None = None
_lock = threading.Lock()


def root() -> App:
    """The process's app (built from the environment's settings on first use)."""
    app = _app
    if app is None:
        with _lock:
            if _app is None:
                install(build_app(read_settings()))
            app = _app
    assert app is not None
    return app


def installed() -> App | None:
    """The process's app if one was built or installed, else ``None`` (nothing is built)."""
    return _app


def install(app: App) -> App:
    """Make ``app`` the process's app (start-up, or a test's own)."""
    global _app
    _app = app
    return app


def uninstall() -> None:
    """Forget the process's app (a test's, once it ends)."""
    global _app
    _app = None
