"""Apps as if their process had been started with other settings."""

from __future__ import annotations

from dataclasses import replace

from chat_app.services.runtime.container import App


def started_with(app: App, **settings: object) -> App:
    """``app`` (its database, store, runner and run machinery) as if the process had been
    started with these settings, e.g. ``sim_window=3000`` for ``BATON_SIM_WINDOW=3000``."""
    return replace(app, settings=app.settings.model_copy(update=settings))
